#pragma once
// How `ringlab plan` prices a gradient bucket: the collective model (a profile, flags) or the
// user's measured AllReduce times (a `ringlab bench --json` run record, which must be for this p).
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/io/model_files.hpp"
#include "ringlab/plan/execution.hpp"

namespace ringlab::measure {

struct PricedBuckets {
  plan::BucketCost cost;
  std::string description;  // one line: the model's parameters, or the measured curve's sizes
  std::string source;       // where they come from: the profile and flags, or "measured FILE"
  std::vector<std::string> warnings;  // the model's convention mismatches, one line each
  bool measured = false;
};

// From `measuredPath` when it is not empty, else from `model`. Throws InvalidArgument when both
// are given, or when the profile or the measured times are for another p than `ranks`.
PricedBuckets priceBuckets(const io::ModelSource& model, const std::string& measuredPath, int ranks,
                           DataType type);

}  // namespace ringlab::measure
