// `ringlab plan`: gradient buckets from the collective model and the backward timeline. The
// optimal contiguous bucketing beside the defaults users have (DDP, Horovod, per tensor, one
// bucket, MG-WFBP), the DDP bucket_cap_mb closest to the optimum, and any bucketing the user gives.
// The plans are compared by plan::comparePlans; this file parses, calls and prints.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "common_options.hpp"
#include "model_options.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/io/timeline_files.hpp"
#include "ringlab/measure/comparison.hpp"
#include "ringlab/measure/record.hpp"
#include "ringlab/plan/compare.hpp"
#include "ringlab/plan/plan_json.hpp"
#include "ringlab/report/gantt.hpp"

namespace ringlab::cli {
namespace {

struct PlanArgs {
  io::TimelineSource timelines;
  std::string evaluate, gantt, writeTimeline, copyBandwidth, ddpCaps, measured;
  int ranks = 8;
  bool views = false, json = false;
  ModelOptions model;
};

// The bucket cost, and one line that says where it comes from: the model with its parameters, or
// the user's measured AllReduce times (`ringlab bench --json`), which must be for this p.
struct CostSource {
  plan::BucketCost cost;
  std::string description, source;
};

CostSource costSource(const PlanArgs& a, DataType type) {
  if (a.measured.empty()) {
    std::vector<std::string> warnings;
    std::string source;
    const model::Profile prof = a.model.resolve(warnings, source);
    io::checkProfileRanks(a.model.profilePath, a.ranks);
    for (const auto& w : warnings) std::fprintf(stderr, "ringlab: %s\n", w.c_str());
    return {plan::BucketCost(a.ranks, type, prof.params), describeModel(prof), source};
  }
  if (!a.model.profilePath.empty() || a.model.overridden()) {
    throwInvalid(
        "give the model (--profile, --alpha, --bw, --gamma, --concurrency) or --measured "
        "(measured AllReduce times), not both");
  }
  model::MeasuredAllReduce m =
      measure::measuredAllReduce(measure::readRecord(a.measured, "measured times"), a.measured);
  if (m.ranks != a.ranks) {
    throwInvalid("measured times " + a.measured + ": measured at p = " + std::to_string(m.ranks) +
                 ", not -p " + std::to_string(a.ranks) + "; measure at this p or pass -p " +
                 std::to_string(m.ranks));
  }
  const std::string description =
      fmt::format("measured AllReduce times over {}, {} sizes from {} to {}, interpolated",
                  m.transport, m.curve.points().size(), formatSize(m.curve.points().front().bytes),
                  formatSize(m.curve.points().back().bytes));
  return {plan::BucketCost(a.ranks, type, std::move(m.curve)), description,
          "measured " + a.measured};
}

void printTable(const PlanArgs& a, const plan::Timeline& recorded, const plan::Timeline& timeline,
                const plan::PlanComparison& c, const plan::PlanContext& context) {
  std::printf(
      "# ringlab plan: %zu tensors, %s %s, backward %s as recorded (%s with bucket copies), p = "
      "%d\n",
      timeline.tensors.size(), formatSize(timeline.totalBytes()).c_str(),
      dataTypeName(timeline.tensors.front().dtype), formatMicros(recorded.backwardEnd_s).c_str(),
      formatMicros(timeline.backwardEnd_s).c_str(), a.ranks);
  std::printf("# %s  [%s]\n", context.model.c_str(), context.modelSource.c_str());
  std::printf(
      "# execution model: one communication stream, buckets in order; a bucket starts when its "
      "last gradient is ready and the previous bucket is done; cost = %s; %s\n",
      a.measured.empty() ? "AllReduce of the algorithm auto picks" : "measured AllReduce time",
      context.copy.c_str());
  std::printf(
      "# iteration = forward %s + max(backward end, last bucket done) + copy-out and optimiser "
      "step %s\n",
      formatMicros(timeline.forward_s).c_str(), formatMicros(timeline.optimizerStep_s).c_str());
  std::printf("# %-16s %8s %14s %12s %14s %10s  %s\n", "plan", "buckets", "last done(us)",
              "exposed(us)", "iteration(us)", "vs optimal", "note");
  for (const plan::NamedPlan& p : c.plans) {
    std::printf("  %-16s %8zu %14.1f %12.1f %14.1f %9.1f%%  %s\n", p.name.c_str(), p.buckets.size(),
                p.prediction.lastDone_s * 1e6, p.prediction.exposed_s * 1e6,
                p.prediction.iteration_s * 1e6,
                100 * plan::aboveOptimum(p.prediction.iteration_s, c), p.note.c_str());
  }
  std::printf("# optimal bucket starts (tensor indices in ready order): %s\n",
              fmt::format("{}", fmt::join(c.optimal.starts, ",")).c_str());
  std::printf(
      "# DDP: pass bucket_cap_mb=%s (predicted iteration %.1f us, %.1f%% above the optimum)\n",
      plan::capMiB(c.ddpCap.capBytes).c_str(), c.ddpCap.iteration_s * 1e6,
      100 * plan::aboveOptimum(c.ddpCap.iteration_s, c));
}

int runPlan(const PlanArgs& a) {
  checkRanks(a.ranks);
  plan::Timeline recorded = io::loadTimeline(a.timelines);
  if (!a.copyBandwidth.empty()) recorded.copyBytesPerSecond = parseBandwidth(a.copyBandwidth);
  if (!a.writeTimeline.empty())
    io::writeTimelineFile(recorded, a.writeTimeline, "--write-timeline");
  const CostSource priced = costSource(a, recorded.tensors.front().dtype);
  const plan::Timeline timeline =
      plan::withBucketCopies(recorded, recorded.copyBytesPerSecond, a.views);
  plan::CompareOptions options;
  if (!a.ddpCaps.empty()) options.ddpCapBytes = plan::parseDdpCaps(a.ddpCaps);
  if (!a.evaluate.empty()) options.evaluate = plan::parseBucketStarts(a.evaluate);
  const plan::PlanComparison c = plan::comparePlans(timeline, priced.cost, options);
  if (!a.gantt.empty()) {
    io::writeTextFile(a.gantt, report::planGanttSvg(timeline, c, a.ranks), "--gantt");
  }
  const plan::PlanContext context{a.ranks, priced.description, priced.source,
                                  plan::describeCopies(timeline, a.views)};
  if (a.json) {
    std::printf("%s\n", plan::comparisonJson(timeline, c, context).dump(2).c_str());
  } else {
    printTable(a, recorded, timeline, c, context);
  }
  return 0;
}

}  // namespace

Action addPlanCommand(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "gradient buckets: the optimum from the model and the backward timeline, vs DDP and Horovod");
  cmd->add_option("--timeline", args->timelines.timeline,
                  "gradient timeline, ringlab's CSV or JSON (docs/BUCKETS.md)");
  cmd->add_option("--trace", args->timelines.trace,
                  "torch.profiler Chrome trace instead of --timeline (needs --params)");
  cmd->add_option("--params", args->timelines.params,
                  "--trace: CSV name,count,dtype per parameter, in model.parameters() order");
  cmd->add_option("-p,--ranks", args->ranks, "number of ranks")->capture_default_str();
  cmd->add_option("--measured", args->measured,
                  "price buckets from measured AllReduce times (`ringlab bench --json` output, "
                  "same p) instead of the model");
  cmd->add_option(
      "--copy-bw", args->copyBandwidth,
      "memory copy bandwidth for the bucket copies, e.g. 8GB/s (overrides the timeline's)");
  cmd->add_flag(
      "--views", args->views,
      "gradients are views into the bucket buffer (DDP gradient_as_bucket_view): no copy");
  cmd->add_option("--evaluate", args->evaluate,
                  "also price this bucketing: bucket start indices in ready order, e.g. 0,12,40");
  cmd->add_option("--ddp-caps", args->ddpCaps,
                  "also price DDP with these bucket_cap_mb values, e.g. 0.1,1,25");
  cmd->add_option("--gantt", args->gantt, "write the Gantt picture (SVG) here");
  cmd->add_option("--write-timeline", args->writeTimeline,
                  "write the timeline read (e.g. from --trace) as ringlab JSON");
  cmd->add_flag("--json", args->json, "print JSON instead of a table");
  args->model.add(*cmd);
  return [args] { return runPlan(*args); };
}

}  // namespace ringlab::cli
