#pragma once
// One measured case's statistics over its iterations, and the ones a table shows.
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/record/record.hpp"

namespace ringlab::record {

// Median, min, max and mean of `seconds` (one time per iteration, already reduced over ranks), in
// microseconds; the per-iteration times too when `keepSamples`. Throws InvalidArgument when empty.
Timing summarise(const std::vector<double>& seconds, bool keepSamples);

// A statistic that a table can show: over iterations reduced over ranks (median, min, max, mean),
// or `loop`, each rank's mean over its iterations reduced over ranks (Timing::loopMeanUs).
enum class Statistic { Median, Min, Max, Mean, Loop };
const char* statisticName(Statistic s);  // "median", "min", "max", "mean", "loop"
double statisticUs(const Timing& t, Statistic s);

// A comma-separated list of those names, each at most once: "median,min,max,mean,loop". Throws
// InvalidArgument naming the bad entry and the valid names, starting with `what`, the caller's
// name for the list.
std::vector<Statistic> parseStatistics(const std::string& list,
                                       std::string_view what = "the statistics");

// How two timings measured side by side in rounds (a[r] and b[r] in the same round, so that a
// core slowed for a while slows both) compare: the ratio a/b as the geometric mean of the rounds'
// ratios, and its interval at `confidence` (0.95 unless a caller corrects for several
// comparisons) from Student's t over the rounds' log ratios. One round gives no interval (low 0,
// high infinity): a single pair cannot tell a lead from noise. Throws InvalidArgument when the
// lists differ in length, are empty, or hold a time that is not > 0, or for a confidence outside
// (0, 1).
struct RatioInterval {
  double ratio = 1, low = 0, high = 0;
  bool below1() const { return high < 1; }  // a is faster beyond the noise
};
RatioInterval pairedRatioInterval(const std::vector<double>& a, const std::vector<double>& b,
                                  double confidence = 0.95);

}  // namespace ringlab::record
