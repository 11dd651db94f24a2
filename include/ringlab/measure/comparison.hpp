#pragma once
// Measured against predicted, row by row: the figures behind `ringlab compare` and
// `ringlab bench --model`, and a record's times as the curve `ringlab plan --measured` prices with.
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/measure/record.hpp"
#include "ringlab/model/measured_curve.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/schedule/algorithms.hpp"

namespace ringlab::measure {

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

// The algorithm a record is compared with: `requested` when given, else the one it recorded, else
// ring (an nccl-tests log names none).
schedule::AlgorithmSpec comparedAlgorithm(const RunRecord& record, const std::string& requested);

// Every row of the record against the model. Throws InvalidArgument naming `name` when the record
// has no datatype or a row lacks its out-of-place or in-place time.
Comparison compare(const RunRecord& record, const schedule::AlgorithmSpec& spec,
                   const model::Profile& profile, const std::string& name);

// Median over rows of at least `fromBytes` of |measured/predicted - 1| (out-of-place and in-place
// rows both counted); NaN when no row qualifies.
double medianAbsoluteError(const Comparison& c, std::uint64_t fromBytes);

// The record's AllReduce times as a curve: in-place times (a gradient bucket is reduced in place),
// out-of-place where a row has none. Throws InvalidArgument "measured times <name>: ..." for a
// row with neither, or too few or disordered sizes.
model::MeasuredAllReduce measuredAllReduce(const RunRecord& record, const std::string& name);

}  // namespace ringlab::measure
