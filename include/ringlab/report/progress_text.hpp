#pragma once
// The one line a front end shows while a long computation runs (core/progress.hpp):
// "tune: ring 64 KiB (round 1/2) 37/120  12 s".
#include <string>
#include <string_view>

#include "ringlab/core/progress.hpp"

namespace ringlab::report {

// `elapsed_s` since the computation started; printed in whole seconds, minutes beyond 60 s.
std::string progressText(std::string_view command, const Progress& progress, double elapsed_s);

}  // namespace ringlab::report
