#include "ringlab/schedule/binomial_tree.hpp"

#include <string>

#include "ringlab/core/error.hpp"

namespace ringlab::schedule {

Schedule binomialTreeAllReduce(int ranks) {
  if (ranks < 1)
    throwInvalid("p = " + std::to_string(ranks) + ": the number of ranks must be >= 1");
  Schedule s;
  s.algorithm = "binomial_tree";
  s.ranks = ranks;
  s.blocks = 1;
  int top = 1;  // the largest round distance: the largest power of two below p
  for (int d = 1; d < ranks; d *= 2) {
    Step step{"reduce", {}};
    for (int r = d; r < ranks; r += 2 * d)
      step.transfers.push_back({r, r - d, 0, 1, RecvMode::Reduce});
    s.steps.push_back(std::move(step));
    top = d;
  }
  for (int d = top; d >= 1 && ranks > 1; d /= 2) {
    Step step{"broadcast", {}};
    for (int r = 0; r + d < ranks; r += 2 * d)
      step.transfers.push_back({r, r + d, 0, 1, RecvMode::Copy});
    s.steps.push_back(std::move(step));
  }
  return s;
}

}  // namespace ringlab::schedule
