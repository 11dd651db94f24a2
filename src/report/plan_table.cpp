#include "ringlab/report/plan_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ringlab/core/units.hpp"

namespace ringlab::report {
namespace {

std::string planHeader(const plan::Timeline& recorded, const plan::Timeline& timeline,
                       const plan::PlanContext& context, bool measured) {
  std::string text = fmt::format(
      "# ringlab plan: {} tensors, {} {}, backward {} as recorded ({} with bucket copies), p = "
      "{}\n",
      timeline.tensors.size(), formatSize(timeline.totalBytes()),
      dataTypeName(timeline.tensors.front().dtype), formatMicros(recorded.backwardEnd_s),
      formatMicros(timeline.backwardEnd_s), context.ranks);
  text += fmt::format("# {}  [{}]\n", context.model, context.modelSource);
  text += fmt::format(
      "# execution model: one communication stream, buckets in order; a bucket starts when its "
      "last gradient is ready and the previous bucket is done; cost = {}; {}\n",
      measured ? "measured AllReduce time" : "AllReduce of the algorithm auto picks", context.copy);
  return text + fmt::format(
                    "# iteration = forward {} + max(backward end, last bucket done) + copy-out "
                    "and optimiser step {}\n",
                    formatMicros(timeline.forward_s), formatMicros(timeline.optimizerStep_s));
}

// The cap to pass to DDP, and when it reaches the optimum, every cap that does as well.
std::string ddpCapLine(const plan::PlanComparison& c) {
  std::string text = fmt::format(
      "# DDP: pass bucket_cap_mb={} (predicted iteration {:.1f} us, {:.1f}% above the optimum)",
      plan::capMiB(c.ddpCap.capBytes), c.ddpCap.iteration_s * 1e6,
      100 * plan::aboveOptimum(c.ddpCap.iteration_s, c));
  if (!c.ddpCapReachesOptimum() || c.ddpCap.asGoodFromBytes == c.ddpCap.capBytes) {
    return text + "\n";
  }
  if (c.ddpCap.asGoodFromBytes <= plan::kDdpCapSearchMinBytes) {
    return text + fmt::format("; any bucket_cap_mb up to {} is as good\n",
                              plan::capMiB(c.ddpCap.capBytes));
  }
  return text + fmt::format("; any bucket_cap_mb from {} to {} is as good\n",
                            plan::capMiB(c.ddpCap.asGoodFromBytes),
                            plan::capMiB(c.ddpCap.capBytes));
}

}  // namespace

std::string planTable(const plan::Timeline& recorded, const plan::Timeline& timeline,
                      const plan::PlanComparison& c, const plan::PlanContext& context,
                      bool measured) {
  std::string text = planHeader(recorded, timeline, context, measured);
  text += fmt::format("# {:<16} {:>8} {:>14} {:>12} {:>14} {:>10}  {}\n", "plan", "buckets",
                      "last done(us)", "exposed(us)", "iteration(us)", "vs optimal", "note");
  for (const plan::NamedPlan& p : c.plans) {
    text += fmt::format("  {:<16} {:8} {:14.1f} {:12.1f} {:14.1f} {:9.1f}%  {}\n", p.name,
                        p.buckets.size(), p.prediction.lastDone_s * 1e6,
                        p.prediction.exposed_s * 1e6, p.prediction.iteration_s * 1e6,
                        100 * plan::aboveOptimum(p.prediction.iteration_s, c), p.note);
  }
  text += fmt::format("# optimal bucket starts (tensor indices in ready order): {}\n",
                      fmt::join(c.optimal.starts, ","));
  if (c.communicationHidden) {
    text += fmt::format(
        "# communication is hidden: every plan whose last bucket is done by the backward's end "
        "({:.1f} us) predicts the same iteration; {}\n",
        timeline.backwardEnd_s * 1e6,
        c.optimal.fewest ? "the optimum above has the fewest buckets of them"
                         : "the search stopped before finding the fewest buckets among them");
  }
  return text + ddpCapLine(c);
}

}  // namespace ringlab::report
