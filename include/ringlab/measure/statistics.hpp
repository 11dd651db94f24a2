#pragma once
// One measured case's statistics over its iterations.
#include <vector>

#include "ringlab/measure/record.hpp"

namespace ringlab::measure {

// Median, min, max and mean of `seconds` (one time per iteration, already the slowest rank's), in
// microseconds; the per-iteration times too when `keepSamples`. Throws InvalidArgument when empty.
Timing summarise(const std::vector<double>& seconds, bool keepSamples);

}  // namespace ringlab::measure
