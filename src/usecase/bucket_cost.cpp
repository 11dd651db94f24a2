#include "ringlab/usecase/bucket_cost.hpp"

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/describe.hpp"
#include "ringlab/record/comparison.hpp"
#include "ringlab/record/record.hpp"

namespace ringlab::usecase {

PricedBuckets priceBuckets(const io::ModelSource& model, const MeasuredTimes* measured, int ranks,
                           DataType type, const PlanLabels& labels) {
  const io::ModelLabels& l = labels.model;
  if (!measured) {
    io::ResolvedModel resolved = io::resolveModel(model, l);
    io::checkProfileRanks(model.profilePath, ranks, l.ranks);
    return {plan::BucketCost(ranks, type, resolved.profile.params),
            model::describeModel(resolved.profile), std::move(resolved.source),
            std::move(resolved.warnings), false};
  }
  if (!model.profilePath.empty() || model.overridden()) {
    throwInvalid(
        fmt::format("give the model ({}, {}, {}, {}, {}) or {} (measured AllReduce "
                    "times), not both",
                    l.profile, l.alpha, l.bandwidth, l.gamma, l.concurrency, labels.measured));
  }
  model::MeasuredAllReduce m = record::measuredAllReduce(measured->record, measured->name);
  if (m.ranks != ranks) {
    throwInvalid(fmt::format(
        "measured times {}: measured at p = {}, not {} {}; measure at this p or pass {} {}",
        measured->name, m.ranks, l.ranks, ranks, l.ranks, m.ranks));
  }
  const auto& points = m.curve.points();
  std::string description = fmt::format(
      "measured AllReduce times over {}, {} sizes from {} to {}, interpolated", m.transport,
      points.size(), formatSize(points.front().bytes), formatSize(points.back().bytes));
  return {plan::BucketCost(ranks, type, std::move(m.curve)),
          std::move(description),
          "measured " + measured->name,
          {},
          true};
}

}  // namespace ringlab::usecase
