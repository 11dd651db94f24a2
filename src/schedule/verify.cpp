#include "ringlab/schedule/verify.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/core/error.hpp"

namespace ringlab::schedule {
namespace {

// A set of contributing ranks is a bitset over p ranks, `words` 64-bit words long, stored in place
// in a flat array. These helpers work on a pointer to its first word.
using Word = std::uint64_t;

bool has(const Word* set, int r) {
  return (set[r / 64] >> (r % 64)) & 1;
}

void add(Word* set, int r) {
  set[r / 64] |= Word{1} << (r % 64);
}

// Without an early exit, so that the loop vectorises: sets are a few words long.
bool isEmpty(const Word* set, std::size_t words) {
  Word any = 0;
  for (std::size_t i = 0; i < words; ++i) any |= set[i];
  return any == 0;
}

// "{r1,r2,...}": the ranks in the set (present) or not in it (!present).
std::string describe(const Word* set, int p, bool present) {
  std::string out;
  for (int r = 0; r < p; ++r) {
    if (has(set, r) != present) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(r);
  }
  return "{" + out + "}";
}

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
    if (owner < 0 || owner >= s.ranks)
      throw Failure{"block owner " + std::to_string(owner) + " is not a rank"};
  }
  if (s.collective == Collective::AllToAll) {
    const auto p = static_cast<std::uint64_t>(s.ranks);
    if (s.blocks != p * p) {
      throw Failure{"an alltoall schedule of p = " + std::to_string(p) + " has p x p = " +
                    std::to_string(p * p) + " blocks, not " + std::to_string(s.blocks)};
    }
    for (std::uint32_t b = 0; b < s.blocks; ++b) {
      if (static_cast<std::uint64_t>(s.blockOwner[b]) != b / p) {
        throw Failure{"alltoall block " + std::to_string(b) + " is rank " + std::to_string(b / p) +
                      "'s, not rank " + std::to_string(s.blockOwner[b]) + "'s"};
      }
    }
  }
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    for (const Transfer& t : s.steps[k].transfers) {
      // Built only on failure: this loop visits every transfer of the schedule.
      const auto at = [&] {
        return where(k, s.steps[k]) + ": transfer " + std::to_string(t.src) + "->" +
               std::to_string(t.dst);
      };
      if (t.src < 0 || t.src >= s.ranks || t.dst < 0 || t.dst >= s.ranks)
        throw Failure{at() + " names a rank outside 0.." + std::to_string(s.ranks - 1)};
      if (t.src == t.dst) throw Failure{at() + " sends to itself"};
      if (t.firstBlock >= t.lastBlock || t.lastBlock > s.blocks) {
        throw Failure{at() + " names blocks [" + std::to_string(t.firstBlock) + ", " +
                      std::to_string(t.lastBlock) + ") outside 0.." + std::to_string(s.blocks)};
      }
    }
  }
}

// The state is, for every rank and block, the set of ranks whose contributions the block holds
// there (empty: no valid data). Blocks never interact: a transfer of blocks [f, l) acts on each
// block alone. So the verifier walks the schedule one block at a time, over that block's p sets
// only, which stay in cache, instead of stepping ranks x blocks sets of p bits through every step
// (at p = 1024 that state is 128 MiB, and walking it step by step is bound by memory).
//
// The verdict is the one a step-by-step walk gives: the first problem in the order step, transfer,
// block (then, at the end, rank, block). Each block's history up to its first problem does not
// depend on other blocks, so that problem is the earliest over all blocks.

// One transfer's write into one block; a block's writes are listed in step, then transfer, order.
// 16 bytes: at large p there are millions, written once each to scattered places.
struct Write {
  std::uint32_t step;           // index into the schedule's steps (2^32 could not be held anyway)
  std::uint32_t transfer : 31;  // index into that step's transfers
  std::uint32_t copy : 1;       // RecvMode::Copy, else Reduce
  int src;
  int dst;
};

// Where a write stands in a step-by-step walk.
struct Position {
  std::uint32_t step = 0, transfer = 0;
  friend auto operator<=>(const Position&, const Position&) = default;
};

class Verifier {
 public:
  explicit Verifier(const Schedule& s)
      : s_(s),
        words_((static_cast<std::size_t>(s.ranks) + 63) / 64),
        holds_(static_cast<std::size_t>(s.ranks) * words_),
        full_(words_, 0),
        stamp_(s.ranks, 0),
        kind_(s.ranks, kUntouched) {
    for (int r = 0; r < s.ranks; ++r) add(full_.data(), r);
    listWrites();
  }

  void run() {
    for (std::uint32_t b = 0; b < s_.blocks; ++b) {
      initialState(b);
      if (!applyWrites(b) || stepProblem_) continue;
      checkFinal(b);
    }
    if (stepProblem_) throw Failure{stepReason_};
    if (finalProblem_) throw Failure{finalReason_};
  }

 private:
  // Kinds of write a block received in the current step (valid while its stamp is the step's).
  static constexpr std::uint8_t kUntouched = 0, kReduced = 1, kCopied = 2;

  // Buckets every transfer's writes by block: writes_[first_[b], first_[b + 1]) are block b's.
  void listWrites() {
    std::vector<std::int64_t> starting(s_.blocks + 1, 0);  // transfers starting minus ending at b
    for (const Step& step : s_.steps) {
      for (const Transfer& t : step.transfers) {
        ++starting[t.firstBlock];
        --starting[t.lastBlock];
      }
    }
    first_.assign(s_.blocks + 1, 0);
    std::int64_t covering = 0;
    for (std::uint32_t b = 0; b < s_.blocks; ++b) {
      covering += starting[b];
      first_[b + 1] = first_[b] + static_cast<std::size_t>(covering);
    }
    std::vector<std::size_t> next(first_.begin(), first_.end() - 1);
    writes_.resize(first_[s_.blocks]);
    for (std::size_t k = 0; k < s_.steps.size(); ++k) {
      const std::vector<Transfer>& transfers = s_.steps[k].transfers;
      for (std::size_t j = 0; j < transfers.size(); ++j) {
        const Transfer& t = transfers[j];
        const Write w{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(j),
                      t.mode == RecvMode::Copy, t.src, t.dst};
        for (std::uint32_t b = t.firstBlock; b < t.lastBlock; ++b) writes_[next[b]++] = w;
      }
    }
  }

  Word* set(int r) { return holds_.data() + static_cast<std::size_t>(r) * words_; }

  // A block that starts at one rank clears only the sets the previous block's walk wrote (its
  // source and the receivers of its writes): an alltoall has p^2 blocks, each touching two ranks.
  void initialState(std::uint32_t b) {
    const int source = blockSource(s_, b);
    if (source < 0) {
      std::fill(holds_.begin(), holds_.end(), 0);
      for (int r = 0; r < s_.ranks; ++r) add(set(r), r);
      touched_.clear();
      wholeStateSet_ = true;
      return;
    }
    if (wholeStateSet_) {
      std::fill(holds_.begin(), holds_.end(), 0);
      wholeStateSet_ = false;
    }
    for (int r : touched_) std::fill_n(set(r), words_, 0);
    touched_.assign(1, source);
    for (std::size_t w = first_[b]; w < first_[b + 1]; ++w) touched_.push_back(writes_[w].dst);
    std::copy(full_.begin(), full_.end(), set(source));
  }

  // Runs block b through its writes, step by step. False when it stopped at a problem, or where
  // nothing it could find would come before the problem already found.
  bool applyWrites(std::uint32_t b) {
    const Write* w = writes_.data() + first_[b];
    const Write* const end = writes_.data() + first_[b + 1];
    while (w != end) {
      const Write* stepEnd = w;
      while (stepEnd != end && stepEnd->step == w->step) ++stepEnd;
      // Sends read the state before the step. With one write to this block in the step, the
      // sender's set is not written by it (no rank sends to itself); with more, copy them first.
      const bool alone = stepEnd - w == 1;
      if (!alone) {
        incoming_.resize(static_cast<std::size_t>(stepEnd - w) * words_);
        Word* to = incoming_.data();
        for (const Write* v = w; v != stepEnd; ++v, to += words_)
          std::copy_n(set(v->src), words_, to);
      }
      if (++currentStamp_ == 0) {  // a new stamp per step forgets the last step's writes
        std::fill(stamp_.begin(), stamp_.end(), 0);
        currentStamp_ = 1;
      }
      const Word* in = alone ? set(w->src) : incoming_.data();
      for (; w != stepEnd; ++w, in += words_) {
        if (stepProblem_ && !(Position{w->step, w->transfer} < stepAt_)) return false;
        if (!applyWrite(*w, b, in)) return false;
      }
    }
    return true;
  }

  bool applyWrite(const Write& w, std::uint32_t b, const Word* in) {
    const auto fail = [&](const std::string& problem) {
      const Step& step = s_.steps[w.step];
      stepProblem_ = true;
      stepAt_ = {w.step, w.transfer};
      stepReason_ = where(w.step, step) + ": rank " + std::to_string(w.src) + " -> rank " +
                    std::to_string(w.dst) + " block " + std::to_string(b) + ": " + problem;
      return false;
    };
    if (isEmpty(in, words_)) return fail("the sender holds no data for this block yet");
    const std::uint8_t mark = stamp_[w.dst] == currentStamp_ ? kind_[w.dst] : kUntouched;
    if (mark == kCopied || (mark != kUntouched && w.copy)) {
      return fail(
          "the block is written twice in one step and one write is a copy, so the result is "
          "ambiguous");
    }
    Word* target = set(w.dst);
    stamp_[w.dst] = currentStamp_;
    if (w.copy) {
      std::copy_n(in, words_, target);
      kind_[w.dst] = kCopied;
      return true;
    }
    Word held = 0, both = 0;  // one pass for both checks, then the union
    for (std::size_t i = 0; i < words_; ++i) {
      held |= target[i];
      both |= target[i] & in[i];
    }
    if (held == 0) return fail("reduces into a block the receiver holds no data for");
    if (both != 0) {
      std::vector<Word> common(target, target + words_);
      for (std::size_t i = 0; i < words_; ++i) common[i] &= in[i];
      return fail("contribution(s) " + describe(common.data(), s_.ranks, true) +
                  " would be reduced in twice");
    }
    for (std::size_t i = 0; i < words_; ++i) target[i] |= in[i];
    kind_[w.dst] = kReduced;
    return true;
  }

  // After the last step: the first rank at which block b is not complete where it must be.
  void checkFinal(std::uint32_t b) {
    const int destination = blockDestination(s_, b);
    const int from = destination < 0 ? 0 : destination;
    const int to = destination < 0 ? s_.ranks : destination + 1;
    for (int r = from; r < to; ++r) {
      if (finalProblem_ && r >= finalRank_) return;
      const Word* got = set(r);
      if (std::equal(got, got + words_, full_.begin())) continue;
      finalProblem_ = true;
      finalRank_ = r;
      finalReason_ = "after " + std::to_string(s_.steps.size()) + " steps, " + "rank " +
                     std::to_string(r) + " block " + std::to_string(b) +
                     (isEmpty(got, words_)
                          ? " holds no data"
                          : " lacks the contributions of ranks " + describe(got, s_.ranks, false)) +
                     "; every participant must be reduced in exactly once";
      return;
    }
  }

  const Schedule& s_;
  const std::size_t words_;
  std::vector<std::size_t> first_;    // per block: where its writes start in writes_; then the end
  std::vector<Write> writes_;         // every transfer's writes, by block, then step, then transfer
  std::vector<Word> holds_;           // the current block's set at every rank, words_ words each
  std::vector<Word> full_;            // all p ranks
  std::vector<Word> incoming_;        // a step's sent sets of the current block, in write order
  std::vector<std::uint32_t> stamp_;  // per rank: the stamp of the last step that wrote the block
  std::vector<std::uint8_t> kind_;    // per rank: how that step wrote it
  std::uint32_t currentStamp_ = 0;
  std::vector<int> touched_;   // ranks whose sets the current block's walk may write
  bool wholeStateSet_ = true;  // every rank's set may be non-empty (a reducing block's start)
  // The earliest problem found so far, in the order of a step-by-step walk. A block is walked
  // after all lower blocks, so at an equal position the one already found stands.
  bool stepProblem_ = false, finalProblem_ = false;
  Position stepAt_;
  int finalRank_ = 0;
  std::string stepReason_, finalReason_;
};

}  // namespace

Verdict verify(const Schedule& s) {
  try {
    checkShape(s);
    Verifier(s).run();
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
