// `ringlab plan`: gradient buckets from the collective model and the backward timeline. The
// optimal contiguous bucketing beside the defaults users have (DDP, Horovod, per tensor, one
// bucket, MG-WFBP), the DDP bucket_cap_mb closest to the optimum, and any bucketing the user gives.
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common_options.hpp"
#include "model_options.hpp"
#include "plan_gantt.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/measure/comparison.hpp"
#include "ringlab/plan/baselines.hpp"
#include "ringlab/plan/chrome_trace.hpp"
#include "ringlab/plan/optimal.hpp"
#include "ringlab/plan/timeline_format.hpp"

namespace ringlab::cli {
namespace {

struct PlanArgs {
  std::string timeline, trace, params, evaluate, gantt, writeTimeline, copyBandwidth, ddpCaps,
      measured;
  int ranks = 8;
  bool views = false, json = false;
  ModelOptions model;
};

std::string readText(const std::string& what, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throwInvalid(what + " " + path + ": cannot be read (missing or not readable)");
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

nlohmann::json readJson(const std::string& what, const std::string& path) {
  try {
    return nlohmann::json::parse(readText(what, path));
  } catch (const nlohmann::json::exception& e) {
    throwInvalid(what + " " + path + ": not valid JSON (" + e.what() + ")");
  }
}

plan::Timeline loadTimeline(const PlanArgs& a) {
  if (a.timeline.empty() == a.trace.empty()) {
    throwInvalid(
        "give one of --timeline (ringlab's CSV/JSON) or --trace (torch.profiler Chrome trace, with "
        "--params)");
  }
  if (!a.timeline.empty()) return plan::parseTimeline(readText("timeline", a.timeline), a.timeline);
  if (a.params.empty())
    throwInvalid("--trace " + a.trace +
                 " needs --params (name,count,dtype per parameter in model.parameters() order)");
  return plan::timelineFromChromeTrace(
      readJson("trace", a.trace),
      plan::parametersFromCsv(readText("parameters", a.params), a.params), a.trace);
}

// A profile measured for one p says so in an optional "ranks" field (tools/ddp_bucket_check.py
// writes one); ringlab calibrate's point-to-point profiles hold for any p and have none.
void checkProfileRanks(const std::string& path, int ranks) {
  if (path.empty()) return;
  const nlohmann::json j = nlohmann::json::parse(readText("profile", path), nullptr, false);
  if (j.is_object() && j.contains("ranks") && j["ranks"].is_number_integer() &&
      j["ranks"].get<int>() != ranks) {
    throwInvalid("profile " + path + ": measured for p = " + std::to_string(j["ranks"].get<int>()) +
                 ", not -p " + std::to_string(ranks) + "; calibrate for this p or pass -p " +
                 std::to_string(j["ranks"].get<int>()));
  }
}

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
    checkProfileRanks(a.model.profilePath, a.ranks);
    for (const auto& w : warnings) std::fprintf(stderr, "ringlab: %s\n", w.c_str());
    return {plan::BucketCost(a.ranks, type, prof.params), describeModel(prof), source};
  }
  const ModelOptions& o = a.model;
  if (!o.profilePath.empty() || !o.alpha.empty() || !o.bandwidth.empty() || !o.gamma.empty() ||
      !o.concurrency.empty()) {
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

std::vector<std::size_t> parseStarts(const std::string& text) {
  std::vector<std::size_t> starts;
  std::stringstream ss(text);
  std::string cell;
  while (std::getline(ss, cell, ',')) {
    if (cell.empty() || cell.find_first_not_of("0123456789") != std::string::npos ||
        cell.size() > 12) {
      throwInvalid("--evaluate '" + text + "': '" + cell +
                   "' is not a bucket start index (whole number >= 0)");
    }
    starts.push_back(std::stoull(cell));
  }
  return starts;
}

// --ddp-caps 0.1,1,25: bucket_cap_mb values (MiB, as DDP reads them) in bytes.
std::vector<std::uint64_t> parseCaps(const std::string& text) {
  std::vector<std::uint64_t> caps;
  std::stringstream ss(text);
  std::string cell;
  while (std::getline(ss, cell, ',')) {
    double mb = -1;
    try {
      std::size_t used = 0;
      mb = std::stod(cell, &used);
      if (used != cell.size()) mb = -1;
    } catch (const std::exception&) {
    }
    if (!(mb > 0 && mb < 1e9))
      throwInvalid("--ddp-caps '" + text + "': '" + cell + "' is not a bucket_cap_mb > 0");
    caps.push_back(static_cast<std::uint64_t>(mb * 1048576.0));
  }
  return caps;
}

struct NamedPlan {
  std::string name, note;
  std::vector<plan::Bucket> buckets;
  plan::Prediction prediction;
};

std::string joinStarts(const std::vector<std::size_t>& starts) {
  std::string s;
  for (std::size_t i = 0; i < starts.size(); ++i) s += (i ? "," : "") + std::to_string(starts[i]);
  return s;
}

nlohmann::json planJson(const NamedPlan& p, const plan::Prediction& optimal) {
  nlohmann::json buckets = nlohmann::json::array();
  for (std::size_t b = 0; b < p.buckets.size(); ++b) {
    const plan::BucketTiming& t = p.prediction.buckets[b];
    buckets.push_back({{"tensors", p.buckets[b].tensors},
                       {"bytes", t.bytes},
                       {"algorithm", t.algorithm},
                       {"ready_us", t.ready_s * 1e6},
                       {"start_us", t.start_s * 1e6},
                       {"end_us", t.end_s * 1e6}});
  }
  const std::vector<std::size_t> starts = plan::startsOf(p.buckets);
  return {{"name", p.name},
          {"note", p.note},
          {"starts", starts.empty() ? nlohmann::json(nullptr) : nlohmann::json(starts)},
          {"bucket_count", p.buckets.size()},
          {"last_done_us", p.prediction.lastDone_s * 1e6},
          {"exposed_us", p.prediction.exposed_s * 1e6},
          {"communication_us", p.prediction.communication_s * 1e6},
          {"iteration_us", p.prediction.iteration_s * 1e6},
          {"vs_optimal", p.prediction.iteration_s / optimal.iteration_s - 1},
          {"buckets", buckets}};
}

int runPlan(const PlanArgs& a) {
  checkRanks(a.ranks);
  plan::Timeline timeline = loadTimeline(a);
  if (!a.copyBandwidth.empty()) timeline.copyBytesPerSecond = parseBandwidth(a.copyBandwidth);
  if (!a.writeTimeline.empty()) {
    std::ofstream out(a.writeTimeline);
    out << plan::toJson(timeline).dump(1) << "\n";
    if (!out) throwInvalid("--write-timeline " + a.writeTimeline + ": cannot be written");
  }
  const DataType type = timeline.tensors.front().dtype;
  const CostSource priced = costSource(a, type);
  const plan::BucketCost& cost = priced.cost;
  const plan::Timeline recorded = timeline;
  timeline = plan::withBucketCopies(recorded, recorded.copyBytesPerSecond, a.views);
  const plan::OptimalPlan optimal = plan::optimalBuckets(timeline, cost);
  const plan::DdpCapChoice cap = plan::bestDdpCap(timeline, cost);

  std::vector<NamedPlan> plans;
  const auto add = [&](std::string name, std::string note, std::vector<plan::Bucket> buckets) {
    plan::Prediction p = plan::predict(timeline, buckets, cost);
    plans.push_back({std::move(name), std::move(note), std::move(buckets), std::move(p)});
  };
  add("optimal", "dynamic programme over contiguous buckets in ready order",
      plan::bucketsFromStarts(optimal.starts, timeline.tensors.size()));
  add("ddp-default", "bucket_cap_mb 25, first bucket 1 MiB",
      plan::ddpBuckets(timeline, plan::kDdpDefaultCapBytes));
  add("ddp-best-cap", fmt::format("bucket_cap_mb {:.4g}", cap.capBytes / 1048576.0),
      plan::ddpBuckets(timeline, cap.capBytes));
  add("horovod-default", "fusion threshold 128 MiB, cycle 1 ms",
      plan::horovodBuckets(timeline, cost));
  add("per-tensor", "one bucket per gradient", plan::perTensorBuckets(timeline));
  add("single", "everything in one bucket", plan::singleBucket(timeline));
  add("mg-wfbp", "greedy merge (Shi et al. 2019)", plan::mgwfbpBuckets(timeline, cost));
  if (!a.ddpCaps.empty()) {
    for (std::uint64_t capBytes : parseCaps(a.ddpCaps)) {
      add(fmt::format("ddp-cap-{:.4g}", capBytes / 1048576.0),
          fmt::format("bucket_cap_mb {:.4g}", capBytes / 1048576.0),
          plan::ddpBuckets(timeline, capBytes));
    }
  }
  if (!a.evaluate.empty()) {
    add("evaluated", "--evaluate " + a.evaluate,
        plan::bucketsFromStarts(parseStarts(a.evaluate), timeline.tensors.size()));
  }
  const plan::Prediction& best = plans.front().prediction;

  if (!a.gantt.empty()) {
    std::vector<GanttRow> rows;
    for (const NamedPlan& p : plans) rows.push_back({p.name, p.prediction});
    std::ofstream out(a.gantt);
    out << ganttSvg(
        timeline, rows,
        fmt::format("ringlab plan: {} tensors, {}, p = {}: backward vs bucket transfers",
                    timeline.tensors.size(), formatSize(timeline.totalBytes()), a.ranks));
    if (!out) throwInvalid("--gantt " + a.gantt + ": cannot be written");
  }
  const std::string copyText =
      a.views ? "gradients are views into the buckets: no copy"
      : timeline.copyBytesPerSecond > 0
          ? fmt::format(
                "gradients copied into buckets on the backward thread and back after the last "
                "bucket at {:.2f} GB/s",
                timeline.copyBytesPerSecond / 1e9)
          : std::string(
                "copy not priced (no measured copy bandwidth: --copy-bw or the timeline's "
                "copy_bandwidth_GBps)");
  if (a.json) {
    nlohmann::json out = {{"timeline",
                           {{"source", timeline.source},
                            {"tensors", timeline.tensors.size()},
                            {"bytes", timeline.totalBytes()},
                            {"dtype", dataTypeName(type)},
                            {"backward_end_us", timeline.backwardEnd_s * 1e6},
                            {"forward_us", timeline.forward_s * 1e6},
                            {"optimizer_step_us", timeline.optimizerStep_s * 1e6}}},
                          {"p", a.ranks},
                          {"model", priced.description},
                          {"model_source", priced.source},
                          {"copy", copyText},
                          {"ddp_bucket_cap_mb", cap.capBytes / 1048576.0},
                          {"ddp_bucket_cap_iteration_us", cap.iteration_s * 1e6},
                          {"optimal_candidates_examined", optimal.candidatesExamined}};
    for (const NamedPlan& p : plans) out["plans"].push_back(planJson(p, best));
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf(
      "# ringlab plan: %zu tensors, %s %s, backward %s as recorded (%s with bucket copies), p = "
      "%d\n",
      timeline.tensors.size(), formatSize(timeline.totalBytes()).c_str(), dataTypeName(type),
      formatMicros(recorded.backwardEnd_s).c_str(), formatMicros(timeline.backwardEnd_s).c_str(),
      a.ranks);
  std::printf("# %s  [%s]\n", priced.description.c_str(), priced.source.c_str());
  std::printf(
      "# execution model: one communication stream, buckets in order; a bucket starts when its "
      "last gradient is "
      "ready and the previous bucket is done; cost = %s; %s\n",
      a.measured.empty() ? "AllReduce of the algorithm auto picks" : "measured AllReduce time",
      copyText.c_str());
  std::printf(
      "# iteration = forward %s + max(backward end, last bucket done) + copy-out and optimiser "
      "step %s\n",
      formatMicros(timeline.forward_s).c_str(), formatMicros(timeline.optimizerStep_s).c_str());
  std::printf("# %-16s %8s %14s %12s %14s %10s  %s\n", "plan", "buckets", "last done(us)",
              "exposed(us)", "iteration(us)", "vs optimal", "note");
  for (const NamedPlan& p : plans) {
    std::printf("  %-16s %8zu %14.1f %12.1f %14.1f %9.1f%%  %s\n", p.name.c_str(), p.buckets.size(),
                p.prediction.lastDone_s * 1e6, p.prediction.exposed_s * 1e6,
                p.prediction.iteration_s * 1e6,
                100 * (p.prediction.iteration_s / best.iteration_s - 1), p.note.c_str());
  }
  std::printf("# optimal bucket starts (tensor indices in ready order): %s\n",
              joinStarts(optimal.starts).c_str());
  std::printf(
      "# DDP: pass bucket_cap_mb=%.4g (predicted iteration %.1f us, %.1f%% above the optimum)\n",
      cap.capBytes / 1048576.0, cap.iteration_s * 1e6,
      100 * (cap.iteration_s / best.iteration_s - 1));
  return 0;
}

}  // namespace

Action addPlanCommand(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "gradient buckets: the optimum from the model and the backward timeline, vs DDP and Horovod");
  cmd->add_option("--timeline", args->timeline,
                  "gradient timeline, ringlab's CSV or JSON (docs/BUCKETS.md)");
  cmd->add_option("--trace", args->trace,
                  "torch.profiler Chrome trace instead of --timeline (needs --params)");
  cmd->add_option("--params", args->params,
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
