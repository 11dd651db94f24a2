#include "ringlab/plan/plan_json.hpp"

namespace ringlab::plan {

nlohmann::json planJson(const NamedPlan& p, const PlanComparison& comparison) {
  nlohmann::json buckets = nlohmann::json::array();
  for (std::size_t b = 0; b < p.buckets.size(); ++b) {
    const BucketTiming& t = p.prediction.buckets[b];
    buckets.push_back({{"tensors", p.buckets[b].tensors},
                       {"bytes", t.bytes},
                       {"algorithm", t.algorithm},
                       {"ready_us", t.ready_s * 1e6},
                       {"start_us", t.start_s * 1e6},
                       {"end_us", t.end_s * 1e6}});
  }
  const std::vector<std::size_t> starts = startsOf(p.buckets);
  return {{"name", p.name},
          {"note", p.note},
          {"starts", starts.empty() ? nlohmann::json(nullptr) : nlohmann::json(starts)},
          {"bucket_count", p.buckets.size()},
          {"last_done_us", p.prediction.lastDone_s * 1e6},
          {"exposed_us", p.prediction.exposed_s * 1e6},
          {"communication_us", p.prediction.communication_s * 1e6},
          {"iteration_us", p.prediction.iteration_s * 1e6},
          {"vs_optimal", aboveOptimum(p.prediction.iteration_s, comparison)},
          {"buckets", buckets}};
}

namespace {

// [from, up to] the caps that predict the optimum's iteration, or null when none on the grid does.
nlohmann::json capsAsGood(const PlanComparison& c) {
  if (!c.ddpCapReachesOptimum()) return nullptr;
  return {c.ddpCap.asGoodFromBytes / 1048576.0, c.ddpCap.capBytes / 1048576.0};
}

}  // namespace

nlohmann::json comparisonJson(const Timeline& timeline, const PlanComparison& c,
                              const PlanContext& context) {
  nlohmann::json out = {{"timeline",
                         {{"source", timeline.source},
                          {"tensors", timeline.tensors.size()},
                          {"bytes", timeline.totalBytes()},
                          {"dtype", dataTypeName(timeline.tensors.front().dtype)},
                          {"backward_end_us", timeline.backwardEnd_s * 1e6},
                          {"forward_us", timeline.forward_s * 1e6},
                          {"optimizer_step_us", timeline.optimizerStep_s * 1e6}}},
                        {"p", context.ranks},
                        {"model", context.model},
                        {"model_source", context.modelSource},
                        {"copy", context.copy},
                        {"ddp_bucket_cap_mb", c.ddpCap.capBytes / 1048576.0},
                        {"ddp_bucket_cap_iteration_us", c.ddpCap.iteration_s * 1e6},
                        {"communication_hidden", c.communicationHidden},
                        {"optimal_has_fewest_buckets", c.optimal.fewest},
                        {"ddp_bucket_caps_as_good_mb", capsAsGood(c)},
                        {"optimal_candidates_examined", c.optimal.candidatesExamined}};
  for (const NamedPlan& p : c.plans) out["plans"].push_back(planJson(p, c));
  return out;
}

}  // namespace ringlab::plan
