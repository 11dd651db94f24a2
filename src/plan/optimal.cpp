#include "ringlab/plan/optimal.hpp"

#include <algorithm>

#include "plan/cost_grid.hpp"

namespace ringlab::plan {

OptimalPlan optimalBuckets(const Timeline& timeline, const BucketCost& cost) {
  validate(timeline);
  const std::size_t n = timeline.tensors.size();
  std::vector<std::uint64_t> prefix(n + 1, 0);  // bytes of tensors 0..i-1
  std::uint64_t smallest = timeline.tensors.front().bytes();
  for (std::size_t i = 0; i < n; ++i) {
    prefix[i + 1] = prefix[i] + timeline.tensors[i].bytes();
    smallest = std::min(smallest, timeline.tensors[i].bytes());
  }
  OptimalPlan plan;
  const auto price = [&](std::uint64_t bytes) {
    ++plan.costEvaluations;
    return cost.seconds(bytes);
  };
  // Grid spacing: the cost's rise over one spacing at most a quarter of the cheapest bucket's cost
  // (a bucket's startup), so the bounds can tell a plan with one more startup from a tie.
  const std::uint64_t total = prefix[n];
  const double slope = total > smallest
                           ? (price(total) - price(std::max(smallest, total / 2))) /
                                 static_cast<double>(total - std::max(smallest, total / 2))
                           : 0.0;
  const double floorCost = price(smallest);
  const std::uint64_t spacing =
      slope > 0 && floorCost > 0
          ? static_cast<std::uint64_t>(std::min(0.25 * floorCost / slope, 1e18))
          : total;
  const detail::CostGrid grid(price, dataTypeSize(timeline.tensors.front().dtype), smallest, total,
                              spacing);

  std::vector<double> done(n + 1, 0);       // C(i)
  std::vector<std::size_t> from(n + 1, 0);  // the j that achieves C(i): its last bucket is j..i-1
  for (std::size_t i = 1; i <= n; ++i) {
    const double ready = timeline.tensors[i - 1].ready_s;
    // The largest j < i with C(j) <= ready (C(0) = 0 <= ready always qualifies): every smaller j
    // also starts at `ready`, with a larger bucket.
    const std::size_t idle = static_cast<std::size_t>(
        std::upper_bound(done.begin(), done.begin() + static_cast<std::ptrdiff_t>(i), ready) -
        done.begin() - 1);
    double best = ready + price(prefix[i] - prefix[idle]);
    std::size_t bestFrom = idle;
    for (std::size_t j = i - 1; j > idle; --j) {
      if (done[j] >= best) continue;  // cannot win whatever its last bucket costs
      // Dominated by merging its plan's last bucket into this one: plan from[j] followed by one
      // bucket from[j]..i-1 starts at max(C(from[j]), ready) and costs cost(S_i - S_from[j]);
      // when that is no later than C(j) + cost(S_i - S_j), j cannot win. The grid bounds decide
      // without pricing either bucket.
      const std::size_t k = from[j];
      if (grid.upper(prefix[i] - prefix[k]) - grid.lower(prefix[i] - prefix[j]) <=
          done[j] - std::max(done[k], ready)) {
        continue;
      }
      const double c = price(prefix[i] - prefix[j]);
      if (ready + c >= best) break;  // nor can any smaller j: their last buckets are larger
      if (done[j] + c < best) {
        best = done[j] + c;
        bestFrom = j;
      }
    }
    done[i] = best;
    from[i] = bestFrom;
  }
  for (std::size_t i = n; i > 0; i = from[i]) plan.starts.push_back(from[i]);
  std::reverse(plan.starts.begin(), plan.starts.end());
  plan.lastDone_s = done[n];
  return plan;
}

}  // namespace ringlab::plan
