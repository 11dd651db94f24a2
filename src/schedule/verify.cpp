#include "ringlab/schedule/verify.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/core/error.hpp"

namespace ringlab::schedule {
namespace {

// A set of contributing ranks is a bitset over p ranks, `words` 64-bit words long, stored in place
// in a flat array (see State). These helpers work on a pointer to its first word.
using Word = std::uint64_t;

bool has(const Word* set, int r) { return (set[r / 64] >> (r % 64)) & 1; }

bool isEmpty(const Word* set, std::size_t words) {
  for (std::size_t i = 0; i < words; ++i) if (set[i]) return false;
  return true;
}

bool intersects(const Word* a, const Word* b, std::size_t words) {
  for (std::size_t i = 0; i < words; ++i) if (a[i] & b[i]) return true;
  return false;
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
    if (owner < 0 || owner >= s.ranks) throw Failure{"block owner " + std::to_string(owner) + " is not a rank"};
  }
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    for (const Transfer& t : s.steps[k].transfers) {
      // Built only on failure: this loop visits every transfer of the schedule.
      const auto at = [&] {
        return where(k, s.steps[k]) + ": transfer " + std::to_string(t.src) + "->" + std::to_string(t.dst);
      };
      if (t.src < 0 || t.src >= s.ranks || t.dst < 0 || t.dst >= s.ranks) throw Failure{at() + " names a rank outside 0.." + std::to_string(s.ranks - 1)};
      if (t.src == t.dst) throw Failure{at() + " sends to itself"};
      if (t.firstBlock >= t.lastBlock || t.lastBlock > s.blocks) {
        throw Failure{at() + " names blocks [" + std::to_string(t.firstBlock) + ", " +
                      std::to_string(t.lastBlock) + ") outside 0.." + std::to_string(s.blocks)};
      }
    }
  }
}

// The symbolic state and the per-step bookkeeping, all allocated once per verify() call.
// For speed at large p (a ring at p = 1024 has 2046 steps of 1024 transfers over 1024 x 1024
// sets): no set is a heap object of its own, no step copies the whole state, and no step allocates.
class Verifier {
 public:
  explicit Verifier(const Schedule& s)
      : s_(s),
        words_((static_cast<std::size_t>(s.ranks) + 63) / 64),
        holds_(static_cast<std::size_t>(s.ranks) * s.blocks * words_, 0),
        stamp_(static_cast<std::size_t>(s.ranks) * s.blocks, 0),
        kind_(static_cast<std::size_t>(s.ranks) * s.blocks, kUntouched) {
    for (int r = 0; r < s.ranks; ++r) {
      for (std::uint32_t b = 0; b < s.blocks; ++b) {
        if (s.collective == Collective::AllGather) {
          if (s.blockOwner[b] == r) fillAll(set(r, b));
        } else {
          set(r, b)[r / 64] |= Word{1} << (r % 64);
        }
      }
    }
  }

  void run() {
    for (std::size_t k = 0; k < s_.steps.size(); ++k) applyStep(k);
    checkFinal();
  }

 private:
  // Kinds of write a block received in the current step (valid while its stamp is the step's).
  static constexpr std::uint8_t kUntouched = 0, kReduced = 1, kCopied = 2;

  std::size_t cell(int r, std::uint32_t b) const { return static_cast<std::size_t>(r) * s_.blocks + b; }
  // holds(r, b): the contributions block b holds at rank r; empty = no valid data.
  Word* set(int r, std::uint32_t b) { return holds_.data() + cell(r, b) * words_; }

  void fillAll(Word* out) const {
    for (int r = 0; r < s_.ranks; ++r) out[r / 64] |= Word{1} << (r % 64);
  }

  void applyStep(std::size_t k) {
    const Step& step = s_.steps[k];
    // Sends read the state before the step: first copy every set this step sends (and only
    // those) into the scratch buffer, then apply the receives in order, reading from it.
    std::size_t sent = 0;
    for (const Transfer& t : step.transfers) sent += t.lastBlock - t.firstBlock;
    incoming_.resize(sent * words_);
    Word* next = incoming_.data();
    for (const Transfer& t : step.transfers) {
      const std::size_t n = (t.lastBlock - t.firstBlock) * words_;
      std::copy_n(set(t.src, t.firstBlock), n, next);  // a transfer's blocks are contiguous
      next += n;
    }
    // The stamp tells which blocks this step has written; a new stamp per step clears them all.
    if (++currentStamp_ == 0) {
      std::fill(stamp_.begin(), stamp_.end(), 0);
      currentStamp_ = 1;
    }
    const Word* in = incoming_.data();
    for (const Transfer& t : step.transfers) {
      for (std::uint32_t b = t.firstBlock; b < t.lastBlock; ++b, in += words_) {
        // Built only on failure.
        const auto what = [&] {
          return where(k, step) + ": rank " + std::to_string(t.src) + " -> rank " +
                 std::to_string(t.dst) + " block " + std::to_string(b);
        };
        if (isEmpty(in, words_)) throw Failure{what() + ": the sender holds no data for this block yet"};
        const std::size_t c = cell(t.dst, b);
        const std::uint8_t mark = stamp_[c] == currentStamp_ ? kind_[c] : kUntouched;
        if (mark == kCopied || (mark != kUntouched && t.mode == RecvMode::Copy)) {
          throw Failure{what() + ": the block is written twice in one step and one write is a copy, so the result is ambiguous"};
        }
        Word* target = set(t.dst, b);
        stamp_[c] = currentStamp_;
        if (t.mode == RecvMode::Copy) {
          std::copy_n(in, words_, target);
          kind_[c] = kCopied;
          continue;
        }
        if (isEmpty(target, words_)) throw Failure{what() + ": reduces into a block the receiver holds no data for"};
        if (intersects(target, in, words_)) {
          std::vector<Word> common(target, target + words_);
          for (std::size_t i = 0; i < words_; ++i) common[i] &= in[i];
          throw Failure{what() + ": contribution(s) " + describe(common.data(), s_.ranks, true) +
                        " would be reduced in twice"};
        }
        for (std::size_t i = 0; i < words_; ++i) target[i] |= in[i];
        kind_[c] = kReduced;
      }
    }
  }

  void checkFinal() {
    std::vector<Word> full(words_, 0);
    fillAll(full.data());
    for (int r = 0; r < s_.ranks; ++r) {
      for (std::uint32_t b = 0; b < s_.blocks; ++b) {
        const bool mustBeComplete = s_.collective != Collective::ReduceScatter || s_.blockOwner[b] == r;
        const Word* got = set(r, b);
        if (!mustBeComplete || std::equal(got, got + words_, full.begin())) continue;
        throw Failure{"after " + std::to_string(s_.steps.size()) + " steps, " + "rank " +
                      std::to_string(r) + " block " + std::to_string(b) +
                      (isEmpty(got, words_) ? " holds no data"
                                            : " lacks the contributions of ranks " + describe(got, s_.ranks, false)) +
                      "; every participant must be reduced in exactly once"};
      }
    }
  }

  const Schedule& s_;
  const std::size_t words_;
  std::vector<Word> holds_;           // ranks x blocks sets of words_ words each
  std::vector<Word> incoming_;        // this step's sent sets, in transfer and block order
  std::vector<std::uint32_t> stamp_;  // per (rank, block): the last step stamp that wrote it
  std::vector<std::uint8_t> kind_;    // per (rank, block): how that step wrote it
  std::uint32_t currentStamp_ = 0;
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
