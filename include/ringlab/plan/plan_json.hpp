#pragma once
// The JSON document of `ringlab plan --json`: the timeline, the model, every plan compared with
// its buckets' timings, and the DDP cap; one shape for every front end.
#include <string>

#include <nlohmann/json.hpp>

#include "ringlab/plan/compare.hpp"

namespace ringlab::plan {

// One plan of the comparison with its buckets; vs_optimal is aboveOptimum of its iteration.
nlohmann::json planJson(const NamedPlan& plan, const PlanComparison& comparison);

// What the document states besides the comparison: how the buckets were priced.
struct PlanContext {
  int ranks = 0;
  std::string model;        // the cost's one-line description
  std::string modelSource;  // where it comes from (profile, flags, measured file)
  std::string copy;         // describeCopies()
};

nlohmann::json comparisonJson(const Timeline& timeline, const PlanComparison& comparison,
                              const PlanContext& context);

}  // namespace ringlab::plan
