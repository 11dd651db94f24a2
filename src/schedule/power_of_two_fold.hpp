#pragma once
// How MPICH runs a power-of-two algorithm on any p (Thakur, Rabenseifner & Gropp 2005, sec. 4):
// with p' the largest power of two <= p and r = p - p', the first 2r ranks pair up. Even rank 2i
// reduces its whole vector into 2i+1 in a first step and gets the result copied back in a last
// step; in between, the odd ranks of the pairs and the ranks >= 2r are the p' "core" ranks that
// the power-of-two algorithm runs on. Shared by recursive_doubling and rabenseifner.
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

class PowerOfTwoFold {
 public:
  explicit PowerOfTwoFold(int ranks);

  int coreSize() const { return core_; }  // p'
  // The rank of the schedule that plays core rank `coreRank` (0 <= coreRank < p').
  int rankOf(int coreRank) const {
    return coreRank < extra_ ? 2 * coreRank + 1 : coreRank + extra_;
  }

  // Appends the fold-in step (each 2i reduces blocks [0, s.blocks) into 2i+1); nothing when p is
  // a power of two.
  void addFoldIn(Schedule& s) const;
  // Appends the fold-out step (each 2i+1 copies blocks [0, s.blocks) back to 2i).
  void addFoldOut(Schedule& s) const;

 private:
  int core_ = 1;
  int extra_ = 0;  // r = p - p'
};

}  // namespace ringlab::schedule
