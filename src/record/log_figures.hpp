#pragma once
// What a logged row's printed figures prove by themselves, within the rounding they were printed
// with: the unit of its time column (algbw = size / time) and the p that its busbw/algbw ratio
// allows (2(p-1)/p for all_reduce: nccl-tests' doc/PERFORMANCE.md). A figure printed too coarsely
// to tell ("0.10" against "0.14") allows every p that its rounding allows, and decides nothing.
#include <climits>
#include <cstdint>
#include <string>
#include <string_view>

namespace ringlab::record::logs {

// A figure as printed, and half the unit of its last digit: the true value lies within
// value +- rounding ("12.34": 0.005; "10094": 0.5; "5e-07": 5e-08).
struct Figure {
  double value = 0, rounding = 0;
};

// Throws InvalidArgument "<what> '<text>': not a number".
Figure parseFigure(const std::string& text, std::string_view what);

// Whether `bytes` moved in `time` (in units of `secondsPerUnit`) is the `algbw` (GB/s) printed
// beside it, within the rounding of both.
bool algbwAgrees(std::uint64_t bytes, const Figure& time, double secondsPerUnit,
                 const Figure& algbw);

// The p of an all_reduce whose busbw/algbw ratio could be 2(p-1)/p within the figures' rounding:
// low..high (high = kAnyRanks where the rounding bounds p from below only); low > high where no p
// gives the ratio.
inline constexpr int kAnyRanks = INT_MAX;
struct RanksAllowed {
  int low = 1, high = kAnyRanks;
};
RanksAllowed allReduceRanksAllowed(const Figure& algbw, const Figure& busbw);

}  // namespace ringlab::record::logs
