#include "ringlab/measure/bucket_cost.hpp"

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/measure/comparison.hpp"
#include "ringlab/measure/record.hpp"
#include "ringlab/model/describe.hpp"

namespace ringlab::measure {

PricedBuckets priceBuckets(const io::ModelSource& model, const std::string& measuredPath, int ranks,
                           DataType type) {
  if (measuredPath.empty()) {
    io::ResolvedModel resolved = io::resolveModel(model);
    io::checkProfileRanks(model.profilePath, ranks);
    return {plan::BucketCost(ranks, type, resolved.profile.params),
            model::describeModel(resolved.profile), std::move(resolved.source),
            std::move(resolved.warnings), false};
  }
  if (!model.profilePath.empty() || model.overridden()) {
    throwInvalid(
        "give the model (--profile, --alpha, --bw, --gamma, --concurrency) or --measured "
        "(measured AllReduce times), not both");
  }
  model::MeasuredAllReduce m =
      measuredAllReduce(readRecord(measuredPath, "measured times"), measuredPath);
  if (m.ranks != ranks) {
    throwInvalid("measured times " + measuredPath + ": measured at p = " + std::to_string(m.ranks) +
                 ", not -p " + std::to_string(ranks) + "; measure at this p or pass -p " +
                 std::to_string(m.ranks));
  }
  const auto& points = m.curve.points();
  std::string description = fmt::format(
      "measured AllReduce times over {}, {} sizes from {} to {}, interpolated", m.transport,
      points.size(), formatSize(points.front().bytes), formatSize(points.back().bytes));
  return {plan::BucketCost(ranks, type, std::move(m.curve)),
          std::move(description),
          "measured " + measuredPath,
          {},
          true};
}

}  // namespace ringlab::measure
