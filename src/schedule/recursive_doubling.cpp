#include "ringlab/schedule/recursive_doubling.hpp"

#include "power_of_two_fold.hpp"

namespace ringlab::schedule {

Schedule recursiveDoublingAllReduce(int ranks) {
  const PowerOfTwoFold fold(ranks);
  Schedule s;
  s.algorithm = "recursive_doubling";
  s.ranks = ranks;
  s.blocks = 1;
  fold.addFoldIn(s);
  const int core = fold.coreSize();
  for (int distance = 1; distance < core; distance *= 2) {
    Step step{"exchange", {}};
    for (int c = 0; c < core; ++c) {
      step.transfers.push_back({fold.rankOf(c), fold.rankOf(c ^ distance), 0, 1, RecvMode::Reduce});
    }
    s.steps.push_back(std::move(step));
  }
  fold.addFoldOut(s);
  return s;
}

}  // namespace ringlab::schedule
