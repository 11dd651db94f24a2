#include "ringlab/schedule/rabenseifner.hpp"

#include <cstdint>

#include "power_of_two_fold.hpp"

namespace ringlab::schedule {
namespace {

// The `width` blocks (a power of two) aligned around block `c`: core rank c's window when it is
// `width` blocks wide, since windows halve around each rank's own block.
std::uint32_t windowStart(int c, int width) {
  return static_cast<std::uint32_t>(c & ~(width - 1));
}

}  // namespace

Schedule rabenseifnerAllReduce(int ranks) {
  const PowerOfTwoFold fold(ranks);
  const int core = fold.coreSize();
  Schedule s;
  s.algorithm = "rabenseifner";
  s.ranks = ranks;
  s.blocks = static_cast<std::uint32_t>(core);
  fold.addFoldIn(s);
  // Halving: c sends the partner's half of its 2d-block window; after the step its window is the
  // d blocks around its own index. At d = 1 core rank c holds block c complete.
  for (int d = core / 2; d >= 1; d /= 2) {
    Step step{"reduce-scatter", {}};
    for (int c = 0; c < core; ++c) {
      const int partner = c ^ d;
      const std::uint32_t first = windowStart(partner, d);
      step.transfers.push_back({fold.rankOf(c), fold.rankOf(partner), first,
                                first + static_cast<std::uint32_t>(d), RecvMode::Reduce});
    }
    s.steps.push_back(std::move(step));
  }
  // Doubling: c sends its d-block window, the partner copies it; windows grow back to all blocks.
  for (int d = 1; d < core; d *= 2) {
    Step step{"allgather", {}};
    for (int c = 0; c < core; ++c) {
      const std::uint32_t first = windowStart(c, d);
      step.transfers.push_back({fold.rankOf(c), fold.rankOf(c ^ d), first,
                                first + static_cast<std::uint32_t>(d), RecvMode::Copy});
    }
    s.steps.push_back(std::move(step));
  }
  fold.addFoldOut(s);
  return s;
}

}  // namespace ringlab::schedule
