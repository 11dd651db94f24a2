#include "ringlab/record/gpu_comparison.hpp"

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/gpu/nccl_model.hpp"
#include "ringlab/gpu/system_spec.hpp"

namespace ringlab::record {
namespace {

// The model's GPU kind for a device string, by the presets' GPUs: the first preset whose GPU
// the device names.
const gpu::Preset* presetFor(const std::string& device) {
  const std::string lowered = lowerCase(device);
  for (const gpu::Preset& p : gpu::presets()) {
    const gpu::GpuSystem s = gpu::parseSystem(p.key);
    if (lowered.find(s.gpu) != std::string::npos) return &p;
  }
  return nullptr;
}

// The log's NCCL_ALGO or NCCL_PROTO where the system sets none: the run's own choice, priced as
// such. One the model cannot read (NCCL's PAT, a typo) is said and left out.
void applyLogSetting(const std::string& logged, const char* variable, const char* key,
                     std::vector<bool> (*allowed)(std::string_view), std::string& setting,
                     std::vector<std::string>& notes) {
  if (logged.empty()) return;
  if (!setting.empty()) {
    if (lowerCase(setting) != lowerCase(logged)) {
      notes.push_back(fmt::format("system: {}={} is priced; the log sets {}={}", key, setting,
                                  variable, logged));
    }
    return;
  }
  try {
    allowed(logged);
  } catch (const Error& e) {
    notes.push_back(fmt::format("log: sets {}, left out: {}", variable, e.what()));
    return;
  }
  setting = logged;
  notes.push_back(fmt::format("log: sets {}={}: only what it leaves is priced", variable, logged));
}

}  // namespace

bool isGpuRun(const LoggedRun& run) {
  return run.device.rfind("GPUs", 0) == 0;
}

GpuComparison compareGpu(const LoggedRun& run, const gpu::GpuSystem& system,
                         const std::string& name) {
  const std::string where = run.name.empty() ? name : name + " (" + run.name + ")";
  if (!isGpuRun(run)) {
    throwInvalid(fmt::format("{}: the log ran on {}, not GPUs: a GPU system prices GPUs only",
                             where, run.device.empty() ? "CPU ranks" : run.device));
  }
  GpuComparison c;
  c.source = name;
  c.device = run.device;
  c.ranks = run.record.run.ranks;
  c.label = fmt::format("p = {}", c.ranks);
  if (!run.name.empty()) c.label += ", " + run.name;
  // The nodes the log's rank lines name, where the system does not state them.
  gpu::GpuSystem placed = system;
  if (run.hosts > 0 && !system.nodesStated) {
    placed.nodes = run.hosts;
    placed.nodesStated = true;
    c.notes.push_back(fmt::format("log: its rank lines name {} host{}: {} node{}", run.hosts,
                                  run.hosts == 1 ? "" : "s", run.hosts, run.hosts == 1 ? "" : "s"));
  } else if (run.hosts > 0 && run.hosts != system.nodes) {
    c.notes.push_back(fmt::format("system: states {} nodes, the log's rank lines name {} hosts",
                                  system.nodes, run.hosts));
  }
  applyLogSetting(run.ncclAlgo, "NCCL_ALGO", "algo", gpu::ncclAlgorithmsAllowed, placed.ncclAlgo,
                  c.notes);
  applyLogSetting(run.ncclProto, "NCCL_PROTO", "proto", gpu::ncclProtocolsAllowed, placed.ncclProto,
                  c.notes);
  try {
    c.system = gpu::withRanks(placed, c.ranks);
  } catch (const Error& e) {
    throwInvalid(fmt::format("{}: {}", where, e.what()));
  }
  for (const std::string& note : run.notes) c.notes.push_back("log: " + note);
  if (!system.gpu.empty()) {
    const std::string device = run.device;
    const std::string lowered = lowerCase(device);
    const std::string family = system.gpu.substr(0, system.gpu.find('-'));
    if (device.find('(') != std::string::npos && lowered.find("nccl-tests") == std::string::npos &&
        lowered.find(family) == std::string::npos) {
      c.notes.push_back(fmt::format("system: the log ran on {}, the system describes {}", device,
                                    system.gpuName));
    }
  }
  for (const std::string& a : c.system.assumptions) c.notes.push_back("system: " + a);
  const gpu::NcclModel model(c.system);
  for (const std::string& line : model.describe()) c.notes.push_back("model: " + line);
  std::vector<gpu::MeasuredTime> rows;
  for (const RecordRow& r : run.record.rows) {
    if (r.outOfPlace) rows.push_back({r.bytes, r.outOfPlace->timeUs});
  }
  c.verdict = gpu::judge(model, rows);
  return c;
}

std::string noSystemSentence(const LoggedRun& run, const std::string& howToGive) {
  std::string out = fmt::format(
      "the log ran p = {} on {}: ringlab cannot judge GPU hardware without a description of it; "
      "{}",
      run.record.run.ranks, run.device, howToGive);
  if (const gpu::Preset* p = presetFor(run.device)) {
    out += fmt::format(" (this GPU's presets include {}: {})", p->key, p->title);
  }
  return out;
}

nlohmann::json toJson(const GpuComparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const gpu::VerdictRow& r : c.verdict.rows) {
    const gpu::NcclChoice& ch = r.predicted.chosen;
    rows.push_back({{"size_bytes", r.bytes},
                    {"measured_us", r.measuredUs},
                    {"predicted_us", r.predictedUs()},
                    {"algorithm", gpu::ncclAlgorithmName(ch.algorithm)},
                    {"protocol", gpu::ncclProtocolName(ch.protocol)},
                    {"channels", ch.channels},
                    {"regime", gpu::regimeName(r.predicted.regime)},
                    {"measured_over_predicted", r.ratio()},
                    {"measured_busbw_GBps", r.measuredBusBw_Bps(c.ranks) / 1e9},
                    {"predicted_busbw_GBps", ch.busBw_Bps / 1e9},
                    {"bound_us", r.predicted.boundTime_s * 1e6}});
  }
  nlohmann::json bands = nlohmann::json::array();
  for (const gpu::BandSummary& b : c.verdict.bands) {
    bands.push_back({{"band", gpu::bandName(b.band)},
                     {"rows", b.rows},
                     {"median_abs_error", b.medianAbsError},
                     {"median_measured_over_predicted", b.medianRatio}});
  }
  return {{"source", c.source},
          {"label", c.label},
          {"device", c.device},
          {"p", c.ranks},
          {"system",
           {{"name", c.system.name},
            {"title", c.system.title},
            {"description", gpu::describeSystem(c.system)},
            {"source", c.system.source}}},
          {"nccl_figures", gpu::kNcclFigures},
          {"conventions",
           "measured_us and predicted_us: one out-of-place AllReduce; busbw: "
           "nccl-tests' algbw x 2(p-1)/p, GB/s = 1e9 B/s"},
          {"rows", rows},
          {"bands", bands},
          {"findings", c.verdict.findings},
          {"flagged", c.verdict.flagged},
          {"notes", c.notes}};
}

}  // namespace ringlab::record
