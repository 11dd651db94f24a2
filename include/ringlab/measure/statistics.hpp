#pragma once
// One measured case's statistics over its iterations, and the ones a table shows.
#include <string>
#include <vector>

#include "ringlab/measure/record.hpp"

namespace ringlab::measure {

// Median, min, max and mean of `seconds` (one time per iteration, already reduced over ranks), in
// microseconds; the per-iteration times too when `keepSamples`. Throws InvalidArgument when empty.
Timing summarise(const std::vector<double>& seconds, bool keepSamples);

// A statistic over iterations that a table can show (OSU's benchmarks print Avg, Min and Max
// Latency; mean is their Avg).
enum class Statistic { Median, Min, Max, Mean };
const char* statisticName(Statistic s);  // "median", "min", "max", "mean"
double statisticUs(const Timing& t, Statistic s);

// A comma-separated list of those names, each at most once: `--stats median,min,max,mean`.
// Throws InvalidArgument naming the bad entry and the valid names.
std::vector<Statistic> parseStatistics(const std::string& list);

}  // namespace ringlab::measure
