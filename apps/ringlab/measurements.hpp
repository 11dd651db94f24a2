#pragma once
// AllReduce measurements read back for comparison with the model: `ringlab bench --json` files
// and nccl-tests all_reduce_perf logs (so NCCL runs on a user's own cluster can be held against
// the same model).
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"

namespace ringlab::cli {

struct MeasuredRow {
  std::uint64_t bytes = 0;
  double outOfPlaceUs = 0;
  double inPlaceUs = 0;
};

struct Measurements {
  std::string source;     // "ringlab bench" or "nccl-tests all_reduce_perf"
  std::string algorithm;  // as recorded; empty when the log does not say (nccl-tests)
  int ranks = 0;
  DataType type = DataType::Float32;
  std::vector<MeasuredRow> rows;
};

// Reads either format, detected from the content. Throws InvalidArgument naming the file and the
// problem: unreadable, neither format, another collective, truncated, no rows, inconsistent rows.
Measurements readMeasurements(const std::string& path);

// The same from text already in memory (`name` appears in error messages).
Measurements parseMeasurements(const std::string& text, const std::string& name);

}  // namespace ringlab::cli
