#pragma once
// The text of `ringlab plan`: what was planned for (tensors, sizes, the backward pass, p, the
// cost), one row per bucketing compared, the optimal bucket starts and the DDP cap to pass.
#include <string>

#include "ringlab/plan/compare.hpp"
#include "ringlab/plan/plan_json.hpp"

namespace ringlab::report {

// `recorded` is the timeline as read, `timeline` the one the plans were priced on (with the
// bucket copies); `measured` says the buckets were priced from measured AllReduce times rather
// than the model. Every line ends in a newline.
std::string planTable(const plan::Timeline& recorded, const plan::Timeline& timeline,
                      const plan::PlanComparison& comparison, const plan::PlanContext& context,
                      bool measured);

}  // namespace ringlab::report
