// `ringlab plan`: gradient buckets from the collective model and the backward timeline. The
// optimal contiguous bucketing beside the defaults users have (DDP, Horovod, per tensor, one
// bucket, MG-WFBP), the DDP bucket_cap_mb closest to the optimum, and any bucketing the user gives.
// The buckets are priced and the plans compared by usecase::planBuckets, and printed by
// report::planTable; this file parses, calls and prints.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "option_groups.hpp"
#include "progress_line.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/io/model_files.hpp"
#include "ringlab/io/timeline_files.hpp"
#include "ringlab/job/launch_environment.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/report/gantt.hpp"
#include "ringlab/report/plan_table.hpp"
#include "ringlab/usecase/bucket_plan.hpp"
#include "transport_option.hpp"

namespace ringlab::cli {
namespace {

struct PlanArgs {
  io::TimelineSource timelines;
  std::string evaluate, svg, writeTimeline, copyBandwidth, ddpCaps, measured;
  int ranks = kDefaultRanks;
  TransportOption transport;  // what the planned job runs over: a profile must match
  bool views = false, profileAnyTransport = false;
  JsonOutput json;
  ModelOptions model;
};

int runPlan(const PlanArgs& a) {
  checkRanks(a.ranks);
  a.json.checkWritable();
  a.transport.entry();
  if (!a.model.profile.empty()) {
    // A profile for one p only: refused.
    io::checkProfileRanks(a.model.profile, a.ranks, ModelOptions::labels().ranks);
    const model::Profile profile = readProfile(a.model.profile);
    const std::string note = model::checkProfileUse(
        profile, a.model.profile, setupUse(a.transport.name, a.ranks, a.profileAnyTransport));
    if (!note.empty()) std::fprintf(stderr, "ringlab: %s\n", note.c_str());
    warnIfUnstable(profile, a.model.profile);
  }
  plan::Timeline recorded = io::loadTimeline(
      a.timelines, {.timeline = "--timeline", .trace = "--trace", .params = "--params"});
  if (!a.copyBandwidth.empty()) recorded.copyBytesPerSecond = parseBandwidth(a.copyBandwidth);
  if (!a.writeTimeline.empty())
    io::writeTimelineFile(recorded, a.writeTimeline, "--write-timeline");
  usecase::BucketPlanRequest request{
      .model = a.model.source(),
      .ranks = a.ranks,
      .views = a.views,
      .labels = {
          .model = ModelOptions::labels(), .measured = "--measured", .copyBandwidth = "--copy-bw"}};
  if (!a.measured.empty())
    request.measured = {record::readRecord(a.measured, "measured times"), a.measured};
  if (!a.ddpCaps.empty()) request.options.ddpCapBytes = plan::parseDdpCaps(a.ddpCaps, "--ddp-caps");
  if (!a.evaluate.empty())
    request.options.evaluate = plan::parseBucketStarts(a.evaluate, "--evaluate");
  ProgressLine line("plan");
  request.options.progress = line.callback();
  const usecase::BucketPlan planned = usecase::planBuckets(recorded, request);
  line.finish();
  for (const auto& w : planned.priced.warnings) std::fprintf(stderr, "ringlab: %s\n", w.c_str());
  const plan::Timeline& timeline = planned.timeline;
  const plan::PlanComparison& c = planned.comparison;
  if (!a.svg.empty()) io::writeTextFile(a.svg, report::planGanttSvg(timeline, c, a.ranks), "--svg");
  a.json.printText(
      report::planTable(recorded, timeline, c, planned.context, planned.priced.measured));
  if (a.json.given()) {
    a.json.write(plan::comparisonJson(timeline, c, planned.context).dump(2) + "\n");
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
                  "gradient timeline, ringlab's CSV or JSON (docs/BUCKETS.md)")
      ->type_name("FILE");
  cmd->add_option("--trace", args->timelines.trace,
                  "torch.profiler Chrome trace instead of --timeline (needs --params)")
      ->type_name("FILE");
  cmd->add_option("--params", args->timelines.params,
                  "--trace: CSV name,count,dtype per parameter, in model.parameters() order")
      ->type_name("FILE");
  addRanks(*cmd, args->ranks);
  args->transport.add(*cmd,
                      "what the planned job runs over (a --profile calibrated over another is "
                      "refused)");
  addProfileAnyTransport(*cmd, args->profileAnyTransport);
  cmd->add_option("--measured", args->measured,
                  "price buckets from measured AllReduce times (`ringlab bench --json` output, "
                  "same p) instead of the model")
      ->type_name("FILE");
  addBandwidth(
      *cmd, "--copy-bw", args->copyBandwidth,
      "memory copy bandwidth for the bucket copies, e.g. 8GB/s (overrides the timeline's)");
  cmd->add_flag(
      "--views", args->views,
      "gradients are views into the bucket buffer (DDP gradient_as_bucket_view): no copy");
  cmd->add_option("--evaluate", args->evaluate,
                  "also price this bucketing: bucket start indices in ready order, e.g. 0,12,40");
  cmd->add_option("--ddp-caps", args->ddpCaps,
                  "also price DDP with these bucket_cap_mb values, e.g. 0.1,1,25");
  addSvg(*cmd, args->svg, "write the Gantt picture of the plans here");
  cmd->add_option("--write-timeline", args->writeTimeline,
                  "write the timeline read (e.g. from --trace) as ringlab JSON")
      ->type_name("FILE");
  args->json.add(*cmd, "also write the comparison as JSON to this file");
  args->model.add(*cmd);
  return [args] { return runPlan(*args); };
}

}  // namespace ringlab::cli
