#include "ringlab/schedule/verify.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/core/error.hpp"

namespace ringlab::schedule {
namespace {

// The set of contributing ranks, as a bitset over p ranks.
class RankSet {
 public:
  explicit RankSet(int p = 0) : words_((p + 63) / 64, 0) {}
  static RankSet all(int p) {
    RankSet s(p);
    for (int r = 0; r < p; ++r) s.add(r);
    return s;
  }
  void add(int r) { words_[r / 64] |= std::uint64_t{1} << (r % 64); }
  bool has(int r) const { return (words_[r / 64] >> (r % 64)) & 1; }
  bool empty() const {
    for (auto w : words_) if (w) return false;
    return true;
  }
  bool intersects(const RankSet& o) const {
    for (std::size_t i = 0; i < words_.size(); ++i) if (words_[i] & o.words_[i]) return true;
    return false;
  }
  void unite(const RankSet& o) {
    for (std::size_t i = 0; i < words_.size(); ++i) words_[i] |= o.words_[i];
  }
  bool operator==(const RankSet&) const = default;
  std::string describe(int p, bool present) const {
    std::string out;
    for (int r = 0; r < p; ++r) {
      if (has(r) != present) continue;
      if (!out.empty()) out += ',';
      out += std::to_string(r);
    }
    return "{" + out + "}";
  }
  RankSet common(const RankSet& o) const {
    RankSet s = *this;
    for (std::size_t i = 0; i < words_.size(); ++i) s.words_[i] &= o.words_[i];
    return s;
  }

 private:
  std::vector<std::uint64_t> words_;
};

struct Failure {
  std::string reason;
};

std::string where(std::size_t stepIndex, const Step& step) {
  return "step " + std::to_string(stepIndex + 1) + " (" + step.phase + ")";
}

void checkShape(const Schedule& s) {
  if (s.ranks < 1) throw Failure{"schedule has p = " + std::to_string(s.ranks) + " ranks"};
  if (s.blocks < 1) throw Failure{"schedule has no blocks"};
  const bool needsOwners = s.collective != Collective::AllReduce;
  if (needsOwners && s.blockOwner.size() != s.blocks) {
    throw Failure{"schedule names owners for " + std::to_string(s.blockOwner.size()) + " of " +
                  std::to_string(s.blocks) + " blocks"};
  }
  for (int owner : s.blockOwner) {
    if (owner < 0 || owner >= s.ranks) throw Failure{"block owner " + std::to_string(owner) + " is not a rank"};
  }
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    for (const Transfer& t : s.steps[k].transfers) {
      const std::string at = where(k, s.steps[k]) + ": transfer " + std::to_string(t.src) + "->" +
                             std::to_string(t.dst);
      if (t.src < 0 || t.src >= s.ranks || t.dst < 0 || t.dst >= s.ranks) throw Failure{at + " names a rank outside 0.." + std::to_string(s.ranks - 1)};
      if (t.src == t.dst) throw Failure{at + " sends to itself"};
      if (t.firstBlock >= t.lastBlock || t.lastBlock > s.blocks) {
        throw Failure{at + " names blocks [" + std::to_string(t.firstBlock) + ", " +
                      std::to_string(t.lastBlock) + ") outside 0.." + std::to_string(s.blocks)};
      }
    }
  }
}

// holds[rank][block]: contributions the block holds at that rank; empty = no valid data.
using State = std::vector<std::vector<RankSet>>;

State initialState(const Schedule& s) {
  State state(s.ranks, std::vector<RankSet>(s.blocks, RankSet(s.ranks)));
  for (int r = 0; r < s.ranks; ++r) {
    for (std::uint32_t b = 0; b < s.blocks; ++b) {
      if (s.collective == Collective::AllGather) {
        if (s.blockOwner[b] == r) state[r][b] = RankSet::all(s.ranks);
      } else {
        state[r][b].add(r);
      }
    }
  }
  return state;
}

void applyStep(const Schedule& s, std::size_t k, State& state) {
  const Step& step = s.steps[k];
  const State before = state;  // sends read the state before the step
  // 0 = untouched this step, 1 = reduced into, 2 = copied over
  std::vector<std::vector<int>> written(s.ranks, std::vector<int>(s.blocks, 0));
  for (const Transfer& t : step.transfers) {
    for (std::uint32_t b = t.firstBlock; b < t.lastBlock; ++b) {
      const std::string what = where(k, step) + ": rank " + std::to_string(t.src) + " -> rank " +
                               std::to_string(t.dst) + " block " + std::to_string(b);
      const RankSet& incoming = before[t.src][b];
      if (incoming.empty()) throw Failure{what + ": the sender holds no data for this block yet"};
      int& mark = written[t.dst][b];
      if (mark == 2 || (mark != 0 && t.mode == RecvMode::Copy)) {
        throw Failure{what + ": the block is written twice in one step and one write is a copy, so the result is ambiguous"};
      }
      RankSet& target = state[t.dst][b];
      if (t.mode == RecvMode::Copy) {
        target = incoming;
        mark = 2;
        continue;
      }
      if (target.empty()) throw Failure{what + ": reduces into a block the receiver holds no data for"};
      if (target.intersects(incoming)) {
        throw Failure{what + ": contribution(s) " + target.common(incoming).describe(s.ranks, true) +
                      " would be reduced in twice"};
      }
      target.unite(incoming);
      mark = 1;
    }
  }
}

void checkFinal(const Schedule& s, const State& state) {
  const RankSet full = RankSet::all(s.ranks);
  const std::string after = "after " + std::to_string(s.steps.size()) + " steps, ";
  for (int r = 0; r < s.ranks; ++r) {
    for (std::uint32_t b = 0; b < s.blocks; ++b) {
      const bool mustBeComplete = s.collective != Collective::ReduceScatter || s.blockOwner[b] == r;
      if (!mustBeComplete || state[r][b] == full) continue;
      const RankSet& got = state[r][b];
      throw Failure{after + "rank " + std::to_string(r) + " block " + std::to_string(b) +
                    (got.empty() ? " holds no data"
                                 : " lacks the contributions of ranks " + got.describe(s.ranks, false)) +
                    "; every participant must be reduced in exactly once"};
    }
  }
}

}  // namespace

Verdict verify(const Schedule& s) {
  try {
    checkShape(s);
    State state = initialState(s);
    for (std::size_t k = 0; k < s.steps.size(); ++k) applyStep(s, k, state);
    checkFinal(s, state);
    return {true, ""};
  } catch (const Failure& f) {
    return {false, f.reason};
  }
}

void verifyOrThrow(const Schedule& s) {
  const Verdict v = verify(s);
  if (!v.valid) throwInvalid("invalid " + s.algorithm + " schedule: " + v.reason);
}

}  // namespace ringlab::schedule
