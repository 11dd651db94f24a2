#pragma once
// Measured against predicted, row by row: the report behind `ringlab compare` and
// `ringlab bench --model`, and its picture (log-log SVG).
#include <string>
#include <vector>

#include "measurements.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/schedule/algorithms.hpp"

namespace ringlab::cli {

struct ComparedRow {
  std::uint64_t bytes = 0;
  double predictedUs = 0;
  double outOfPlaceUs = 0, inPlaceUs = 0;
  double outOfPlaceRatio() const { return outOfPlaceUs / predictedUs; }
  double inPlaceRatio() const { return inPlaceUs / predictedUs; }
};

struct Comparison {
  std::string label;   // "ring, p = 4"
  std::string source;  // what measured it
  std::vector<ComparedRow> rows;
};

// Predicted microseconds for one AllReduce of `bytes` under the profile.
double predictedMicros(const schedule::AlgorithmSpec& spec, int ranks, std::uint64_t bytes,
                       DataType type, const model::Profile& profile);

Comparison compare(const Measurements& m, const schedule::AlgorithmSpec& spec,
                   const model::Profile& profile);

// Median over rows of at least `fromBytes` of |measured/predicted - 1| (out-of-place and in-place
// rows both counted); NaN when no row qualifies.
double medianAbsoluteError(const Comparison& c, std::uint64_t fromBytes);

void printComparison(const Comparison& c);

// One log-log chart: time against size, measured (solid, dots) and predicted (dashed), one colour
// per comparison. A self-contained SVG file.
void writeSvg(const std::string& path, const std::vector<Comparison>& comparisons,
              const std::string& title);

}  // namespace ringlab::cli
