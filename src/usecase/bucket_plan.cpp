#include "ringlab/usecase/bucket_plan.hpp"

#include "ringlab/plan/execution.hpp"

namespace ringlab::usecase {

BucketPlan planBuckets(const plan::Timeline& recorded, const BucketPlanRequest& request) {
  PricedBuckets priced =
      priceBuckets(request.model, request.measured ? &*request.measured : nullptr, request.ranks,
                   recorded.tensors.front().dtype, request.labels);
  plan::Timeline timeline =
      plan::withBucketCopies(recorded, recorded.copyBytesPerSecond, request.views);
  plan::PlanComparison comparison = plan::comparePlans(timeline, priced.cost, request.options);
  plan::PlanContext context{
      request.ranks, priced.description, priced.source,
      plan::describeCopies(timeline, request.views, request.labels.copyBandwidth)};
  return {std::move(timeline), std::move(priced), std::move(comparison), std::move(context)};
}

}  // namespace ringlab::usecase
