#pragma once
// How `ringlab plan` prices a gradient bucket: the collective model (a profile, given values) or
// the user's measured AllReduce times (a bench run record, which must be for this p).
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/io/model_files.hpp"
#include "ringlab/plan/execution.hpp"
#include "ringlab/record/record.hpp"

namespace ringlab::usecase {

struct PricedBuckets {
  plan::BucketCost cost;
  std::string description;  // one line: the model's parameters, or the measured curve's sizes
  std::string source;       // where they come from: the profile and flags, or "measured FILE"
  std::vector<std::string> warnings;  // the model's convention mismatches, one line each
  bool measured = false;
};

// Measured AllReduce times to price with: a run record, and the name it is known by (its file).
struct MeasuredTimes {
  record::RunRecord record;
  std::string name;
};

// The caller's names for the inputs a plan reads, which its errors start with (labels: see
// io/model_files.hpp).
struct PlanLabels {
  io::ModelLabels model;
  std::string measured = "measured times";
  std::string copyBandwidth = "a copy bandwidth";
};

// From `measured` when given, else from `model`. Throws InvalidArgument when both are given, or
// when the profile or the measured times are for another p than `ranks`.
PricedBuckets priceBuckets(const io::ModelSource& model, const MeasuredTimes* measured, int ranks,
                           DataType type, const PlanLabels& labels = {});

}  // namespace ringlab::usecase
