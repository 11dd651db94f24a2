#include "ringlab/model/cost.hpp"

#include <algorithm>
#include <vector>

#include "ringlab/core/error.hpp"
#include "ringlab/core/partition.hpp"
#include "ringlab/schedule/ring_shape.hpp"

namespace ringlab::model {
namespace {

// Largest chunk of a ring over p ranks, in bytes: it sets each step's time.
double largestChunkBytes(std::uint64_t count, int p, std::uint64_t elementBytes) {
  return static_cast<double>(schedule::ringLargestChunkElements(count, schedule::ringChunks(p)) *
                             elementBytes);
}

int floorLog2(int p) {
  int k = 0;
  while ((2 << k) <= p) ++k;
  return k;
}

// How much slower a step with `transfers` concurrent transfers moves and reduces its bytes.
double contention(std::uint64_t transfers, const ModelParams& m) {
  const double limit = m.host.concurrent_transfers;
  return limit > 0 ? std::max(1.0, static_cast<double>(transfers) / limit) : 1.0;
}

// Of `reduced` bytes received and reduced in one transfer, those whose reduction is the transfer
// itself (FusionParams): they cost gamma only.
double fusedBytes(double reduced, std::uint64_t elementBytes, const ModelParams& m) {
  const double from = m.fusion.fused_reduce_from_bytes;
  if (from <= 0 || reduced <= 0) return 0;
  const double segment = m.fusion.segment_bytes > 0 ? m.fusion.segment_bytes : reduced;
  return static_cast<double>(bytesInMessagesFrom(static_cast<std::uint64_t>(reduced) / elementBytes,
                                                 elementBytes, static_cast<std::uint64_t>(segment),
                                                 static_cast<std::uint64_t>(from)));
}

// What a step's reducing receives read at the sender: its input as the call was given it (the
// call's first reducing step), or bytes it wrote during the call (partial sums: every later one).
// Only the first can still sit in the receiver's cache from the previous call
// (FusionParams::sender_input_cached).
enum class Reads { SendersInput, SendersPartials };

// `steps` steps that each run `transfers` transfers at once, the busiest rank moving `bytes`
// and reducing `reduced` bytes (of `elementBytes`-byte elements) that it reads as `reads` says.
Cost uniformSteps(std::uint64_t steps, double bytes, double reduced, std::uint64_t transfers,
                  const ModelParams& m, std::uint64_t elementBytes, Reads reads) {
  const double slowdown = contention(transfers, m);
  const double fused = fusedBytes(reduced, elementBytes, m);
  const double moved = std::max(0.0, bytes - fused);
  // A fused pass over bytes that must cross from the sender's core goes at the slower of the
  // crossing and the reduction; over the sender's cached input, at the reduction's pace.
  const bool crosses = !(reads == Reads::SendersInput && m.fusion.sender_input_cached);
  const double crossingExcess =
      crosses ? fused * std::max(0.0, m.link.beta_s_per_byte - m.reduce.gamma_s_per_byte) : 0;
  Cost c;
  c.steps = steps;
  c.startup_s = steps * m.link.alpha_s;
  c.bandwidth_s = steps * (moved * m.link.beta_s_per_byte + crossingExcess) * slowdown;
  c.reduce_s = steps * reduced * m.reduce.gamma_s_per_byte * slowdown;
  return c;
}

Cost operator+(Cost a, const Cost& b) {
  a.steps += b.steps;
  a.startup_s += b.startup_s;
  a.bandwidth_s += b.bandwidth_s;
  a.reduce_s += b.reduce_s;
  a.regime = std::max(a.regime, b.regime);
  return a;
}

// `steps(m)` priced in the regime of a p-rank run whose ranks each receive into `scratchBytes`
// beside a message of `messageBytes`, and tagged with it.
template <typename Steps>
Cost priced(const ModelParams& given, int p, double messageBytes, double scratchBytes,
            const Steps& steps) {
  const Regime regime = regimeOf(given, p, rankWorkingSetBytes(given, messageBytes, scratchBytes));
  Cost c = steps(inRegime(given, regime));
  c.regime = regime;
  return c;
}

Cost ringReduceScatterSteps(int p, std::uint64_t count, std::uint64_t elementBytes,
                            const ModelParams& m) {
  const double chunk = largestChunkBytes(count, p, elementBytes);
  // Every rank sends one chunk per step: its input's in the first, its partial sum after.
  const std::uint64_t steps = schedule::ringPhaseSteps(p);
  if (steps == 0) return {};
  return uniformSteps(1, chunk, chunk, p, m, elementBytes, Reads::SendersInput) +
         uniformSteps(steps - 1, chunk, chunk, p, m, elementBytes, Reads::SendersPartials);
}

Cost ringAllGatherSteps(int p, std::uint64_t count, std::uint64_t elementBytes,
                        const ModelParams& m) {
  return uniformSteps(schedule::ringPhaseSteps(p), largestChunkBytes(count, p, elementBytes), 0, p,
                      m, elementBytes, Reads::SendersPartials);
}

// MPICH's non-power-of-two handling (recursive doubling, Rabenseifner): with r = p - p' extra
// ranks, one step folds them in (full vector, reduced) and one step hands the result back; each
// is r transfers.
Cost foldExtraRanks(int p, double vectorBytes, const ModelParams& m, std::uint64_t elementBytes) {
  if ((p & (p - 1)) == 0) return {};
  const std::uint64_t extra = p - (1 << floorLog2(p));
  return uniformSteps(1, vectorBytes, vectorBytes, extra, m, elementBytes, Reads::SendersInput) +
         uniformSteps(1, vectorBytes, 0, extra, m, elementBytes, Reads::SendersPartials);
}

}  // namespace

void refuseModelBytes(std::uint64_t count, std::uint64_t elementBytes) {
  throwInvalid("message of " + std::to_string(count) + " elements x " +
               std::to_string(elementBytes) + " B is over the model's limit of " +
               std::to_string(kMaxModelBytes) + " B (2^53 B = 8 PiB)");
}

// The ring's receives land in a few reused segment slots: no scratch of the message's size.
Cost ringReduceScatterCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                           const ModelParams& given) {
  const double n = static_cast<double>(modelBytes(count, elementBytes));
  return priced(given, p, n, 0, [&](const ModelParams& m) {
    return ringReduceScatterSteps(p, count, elementBytes, m);
  });
}

Cost ringAllGatherCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                       const ModelParams& given) {
  const double n = static_cast<double>(modelBytes(count, elementBytes));
  return priced(given, p, n, 0, [&](const ModelParams& m) {
    return ringAllGatherSteps(p, count, elementBytes, m);
  });
}

Cost ringAllReduceCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                       const ModelParams& given) {
  const double n = static_cast<double>(modelBytes(count, elementBytes));
  // 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma when p divides the count.
  return priced(given, p, n, 0, [&](const ModelParams& m) {
    return ringReduceScatterSteps(p, count, elementBytes, m) +
           ringAllGatherSteps(p, count, elementBytes, m);
  });
}

Cost recursiveDoublingCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                           const ModelParams& given) {
  const double n = static_cast<double>(modelBytes(count, elementBytes));
  // lg p (alpha + n beta + n gamma) for a power of two. Each exchange sends the vector that the
  // partner's vector is reduced into, so that vector is received into scratch first.
  return priced(given, p, n, p > 1 ? n : 0, [&](const ModelParams& m) {
    // The first exchange reads the partner's input, unless extra ranks were folded into it.
    const int levels = floorLog2(p);
    const std::uint64_t pairs = std::uint64_t{1} << levels;
    const Reads first = (p & (p - 1)) == 0 ? Reads::SendersInput : Reads::SendersPartials;
    Cost c = foldExtraRanks(p, n, m, elementBytes);
    if (levels > 0) {
      c = c + uniformSteps(1, n, n, pairs, m, elementBytes, first) +
          uniformSteps(levels - 1, n, n, pairs, m, elementBytes, Reads::SendersPartials);
    }
    return c;
  });
}

Cost rabenseifnerCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                      const ModelParams& given) {
  const double n = static_cast<double>(modelBytes(count, elementBytes));
  // 2 lg p alpha + 2(p-1)/p n beta + (p-1)/p n gamma for a power of two. Exactly: the buffer is
  // split into p' = 2^floor(lg p) blocks; halving step k moves an aligned span of p'/2^k blocks,
  // the largest of which is the first (it holds the blocks with the extra element).
  // Each step receives the half it does not send: no scratch.
  const int levels = floorLog2(p);
  const std::uint64_t blocks = std::uint64_t{1} << levels;
  return priced(given, p, n, 0, [&](const ModelParams& m) {
    Cost c;
    for (int k = 1; k <= levels; ++k) {
      const std::uint64_t span = blocks >> k;
      const double bytes =
          static_cast<double>(partitionSpan(count, blocks, 0, span).count * elementBytes);
      const Reads reads =
          k == 1 && (p & (p - 1)) == 0 ? Reads::SendersInput : Reads::SendersPartials;
      c = c + uniformSteps(1, bytes, bytes, blocks, m, elementBytes, reads) +
          uniformSteps(1, bytes, 0, blocks, m, elementBytes, Reads::SendersPartials);
    }
    return c + foldExtraRanks(p, n, m, elementBytes);
  });
}

namespace {

// A binomial tree's rounds over p ranks, each priced by round(m, senders, reads): the round at
// distance d has ceil((p - d) / 2d) senders, in a reduce and in a broadcast alike; the first round
// reads the senders' inputs. A rank receives in a
// round where it does not send: no scratch.
template <typename Round>
Cost binomialRounds(int p, double vectorBytes, const ModelParams& given, const Round& round) {
  return priced(given, p, vectorBytes, 0, [&](const ModelParams& m) {
    Cost c;
    for (int d = 1; d < p; d *= 2) {
      const std::uint64_t senders = (p - d + 2 * d - 1) / (2 * d);
      c = c + round(m, senders, d == 1 ? Reads::SendersInput : Reads::SendersPartials);
    }
    return c;
  });
}

}  // namespace

Cost binomialTreeCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                      const ModelParams& given) {
  const double n = static_cast<double>(modelBytes(count, elementBytes));
  // Reduce to the root then broadcast: 2 ceil(lg p) steps of the full vector.
  return binomialRounds(p, n, given, [&](const ModelParams& m, std::uint64_t senders, Reads reads) {
    return uniformSteps(1, n, n, senders, m, elementBytes, reads) +
           uniformSteps(1, n, 0, senders, m, elementBytes, Reads::SendersPartials);
  });
}

Cost binomialTreeReduceCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                            const ModelParams& given) {
  const double n = static_cast<double>(modelBytes(count, elementBytes));
  return binomialRounds(p, n, given, [&](const ModelParams& m, std::uint64_t senders, Reads reads) {
    return uniformSteps(1, n, n, senders, m, elementBytes, reads);
  });
}

Cost binomialTreeBroadcastCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                               const ModelParams& given) {
  const double n = static_cast<double>(modelBytes(count, elementBytes));
  return binomialRounds(p, n, given, [&](const ModelParams& m, std::uint64_t senders, Reads) {
    return uniformSteps(1, n, 0, senders, m, elementBytes, Reads::SendersPartials);
  });
}

Cost pairwiseExchangeCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                          const ModelParams& given) {
  const double n = static_cast<double>(modelBytes(count, elementBytes));
  // (p - 1) (alpha + n/p beta) when p divides the count; every rank sends in every step, and
  // receives into its output, apart from the chunks it sends: no scratch.
  const double chunk = static_cast<double>(partitionChunk(count, p, 0).count * elementBytes);
  return priced(given, p, n, 0, [&](const ModelParams& m) {
    return uniformSteps(p - 1, chunk, 0, p, m, elementBytes, Reads::SendersInput);
  });
}

namespace {

struct BlockRange {
  std::uint32_t first, last;  // [first, last)
  bool overlaps(const BlockRange& o) const { return first < o.last && o.first < last; }
};

// The most bytes a rank receives into scratch in one step: the executor buffers a step's receives
// at a rank where one writes blocks that one of its sends reads, or two write the same blocks.
double scratchBytes(const schedule::Schedule& s, std::uint64_t count, std::uint64_t elementBytes) {
  double most = 0;
  std::vector<std::vector<BlockRange>> sends(s.ranks), recvs(s.ranks);
  std::vector<double> received(s.ranks);
  for (const schedule::Step& step : s.steps) {
    for (int r = 0; r < s.ranks; ++r) {
      sends[r].clear();
      recvs[r].clear();
      received[r] = 0;
    }
    for (const schedule::Transfer& t : step.transfers) {
      sends[t.src].push_back({t.firstBlock, t.lastBlock});
      recvs[t.dst].push_back({t.firstBlock, t.lastBlock});
      received[t.dst] += static_cast<double>(
          schedule::spanElements(s, count, t.firstBlock, t.lastBlock) * elementBytes);
    }
    for (int r = 0; r < s.ranks; ++r) {
      bool buffered = false;
      for (std::size_t i = 0; i < recvs[r].size() && !buffered; ++i) {
        for (const BlockRange& sent : sends[r]) buffered = buffered || recvs[r][i].overlaps(sent);
        for (std::size_t j = i + 1; j < recvs[r].size(); ++j)
          buffered = buffered || recvs[r][i].overlaps(recvs[r][j]);
      }
      if (buffered) most = std::max(most, received[r]);
    }
  }
  return most;
}

}  // namespace

Cost scheduleCost(const schedule::Schedule& s, std::uint64_t count, DataType type,
                  const ModelParams& given) {
  const std::uint64_t elementBytes = dataTypeSize(type);
  const double n = static_cast<double>(modelBytes(count, elementBytes));
  return priced(given, s.ranks, n, scratchBytes(s, count, elementBytes), [&](const ModelParams& m) {
    Cost c;
    std::vector<double> sent(s.ranks), received(s.ranks), reduced(s.ranks);
    // The call's first reducing step reads the senders' inputs; every later one is priced as
    // reading partial sums (a tree's late sender that received nothing yet is priced alike).
    Reads reads = Reads::SendersInput;
    for (const schedule::Step& step : s.steps) {
      std::fill(sent.begin(), sent.end(), 0.0);
      std::fill(received.begin(), received.end(), 0.0);
      std::fill(reduced.begin(), reduced.end(), 0.0);
      for (const schedule::Transfer& t : step.transfers) {
        const double bytes = static_cast<double>(
            schedule::spanElements(s, count, t.firstBlock, t.lastBlock) * elementBytes);
        sent[t.src] += bytes;
        received[t.dst] += bytes;
        if (t.mode == schedule::RecvMode::Reduce) reduced[t.dst] += bytes;
      }
      double moved = 0, reducedMax = 0;
      for (int r = 0; r < s.ranks; ++r) {
        moved = std::max({moved, sent[r], received[r]});
        reducedMax = std::max(reducedMax, reduced[r]);
      }
      c = c + uniformSteps(1, moved, reducedMax, step.transfers.size(), m, elementBytes, reads);
      if (reducedMax > 0) reads = Reads::SendersPartials;
    }
    return c;
  });
}

}  // namespace ringlab::model
