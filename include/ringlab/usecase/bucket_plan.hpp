#pragma once
// One `ringlab plan`: a recorded gradient timeline priced (usecase::priceBuckets), its bucket
// copies added, and every plan compared (plan::comparePlans), with the context the JSON and the
// table state. The CLI and the Python package (ringlab.plan_buckets) both call it.
#include <optional>
#include <string>

#include "ringlab/io/model_files.hpp"
#include "ringlab/plan/compare.hpp"
#include "ringlab/plan/plan_json.hpp"
#include "ringlab/usecase/bucket_cost.hpp"

namespace ringlab::usecase {

struct BucketPlanRequest {
  io::ModelSource model;
  // A run record: price from measured times instead of the model. The front end reads it (the
  // CLI from its file; Python passes the record it holds).
  std::optional<MeasuredTimes> measured;
  int ranks = 8;
  bool views = false;  // gradients are views into the bucket buffer: no copy
  plan::CompareOptions options;
  PlanLabels labels;  // the front end's names for the model's inputs, measured times, copies
};

struct BucketPlan {
  plan::Timeline timeline;  // the recorded one with its bucket copies
  PricedBuckets priced;
  plan::PlanComparison comparison;
  plan::PlanContext context;
};

// Throws what priceBuckets and comparePlans throw.
BucketPlan planBuckets(const plan::Timeline& recorded, const BucketPlanRequest& request);

}  // namespace ringlab::usecase
