#include "power_of_two_fold.hpp"

#include <bit>
#include <string>

#include "ringlab/core/error.hpp"

namespace ringlab::schedule {

PowerOfTwoFold::PowerOfTwoFold(int ranks) {
  if (ranks < 1)
    throwInvalid("p = " + std::to_string(ranks) + ": the number of ranks must be >= 1");
  core_ = static_cast<int>(std::bit_floor(static_cast<unsigned>(ranks)));
  extra_ = ranks - core_;
}

void PowerOfTwoFold::addFoldIn(Schedule& s) const {
  if (extra_ == 0) return;
  Step step{"fold-in", {}};
  for (int i = 0; i < extra_; ++i)
    step.transfers.push_back({2 * i, 2 * i + 1, 0, s.blocks, RecvMode::Reduce});
  s.steps.push_back(std::move(step));
}

void PowerOfTwoFold::addFoldOut(Schedule& s) const {
  if (extra_ == 0) return;
  Step step{"fold-out", {}};
  for (int i = 0; i < extra_; ++i)
    step.transfers.push_back({2 * i + 1, 2 * i, 0, s.blocks, RecvMode::Copy});
  s.steps.push_back(std::move(step));
}

}  // namespace ringlab::schedule
