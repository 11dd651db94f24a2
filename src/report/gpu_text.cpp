#include "ringlab/report/gpu_text.hpp"

#include <fmt/format.h>

#include "ringlab/gpu/system_spec.hpp"

namespace ringlab::report {
namespace {

std::string systemHeader(const gpu::GpuSystem& s) {
  std::string out = fmt::format("# system: {} ({}): {}\n# source: {}\n", s.name, s.title,
                                gpu::describeSystem(s), s.source);
  return out;
}

std::string choiceName(const gpu::NcclChoice& c) {
  return fmt::format("{}/{}", gpu::ncclAlgorithmName(c.algorithm),
                     gpu::ncclProtocolName(c.protocol));
}

}  // namespace

std::string gpuPresetsText() {
  std::string out = fmt::format("# GPU system presets (one node each; scale with nodes=N)\n");
  for (const gpu::Preset& p : gpu::presets()) {
    out += fmt::format("{:<14} {}\n{:<14} {}\n{:<14} source: {}\n", p.key, p.title, "", p.spec, "",
                       p.source);
  }
  return out;
}

std::string gpuComparisonText(const record::GpuComparison& c) {
  std::string out =
      fmt::format("# ringlab compare: measured against AllReduce as NCCL runs it (figures: {})\n",
                  gpu::kNcclFigures);
  out += systemHeader(c.system);
  out += fmt::format("# {}, measured by {} on {}\n", c.label, c.source, c.device);
  for (const std::string& note : c.notes) out += "# " + note + "\n";
  out +=
      "# time: one out-of-place AllReduce; busbw = algbw x 2(p-1)/p (nccl-tests), GB/s = 1e9 B/s\n";
  out += fmt::format("# {:>12} {:>11} {:>11} {:>9} {:>10} {:>10} {:>17} {:>3} {:>16} {:>10}\n",
                     "size (B)", "meas (us)", "model (us)", "meas/mod", "busbw meas", "busbw mod",
                     "NCCL algo/proto", "ch", "regime", "bound (us)");
  for (const gpu::VerdictRow& r : c.verdict.rows) {
    const gpu::NcclChoice& ch = r.predicted.chosen;
    out += fmt::format(
        "  {:>12} {:>11.1f} {:>11.1f} {:>9.2f} {:>10.1f} {:>10.1f} {:>17} {:>3} {:>16} {:>10.1f}\n",
        r.bytes, r.measuredUs, r.predictedUs(), r.ratio(), r.measuredBusBw_Bps(c.ranks) / 1e9,
        ch.busBw_Bps / 1e9, choiceName(ch), ch.channels, gpu::regimeName(r.predicted.regime),
        r.predicted.boundTime_s * 1e6);
  }
  std::string bands;
  for (const gpu::BandSummary& b : c.verdict.bands) {
    bands += fmt::format("{}{} {:.3f} ({} rows)", bands.empty() ? "" : "; ", gpu::bandName(b.band),
                         b.medianAbsError, b.rows);
  }
  if (!bands.empty()) out += "# median |measured/predicted - 1|: " + bands + "\n";
  for (const std::string& f : c.verdict.findings) out += "# finding: " + f + "\n";
  out += c.verdict.flagged ? "# verdict: FLAGGED (see the findings)\n"
                           : "# verdict: within the model's margins\n";
  return out;
}

std::string gpuCurveText(const gpu::NcclModel& model, const std::vector<std::uint64_t>& sizes) {
  const gpu::GpuSystem& s = model.system();
  std::string out = fmt::format(
      "# ringlab model: AllReduce as NCCL runs it (figures: {}), p = {} ({} node{} x {})\n",
      gpu::kNcclFigures, s.ranks(), s.nodes, s.nodes == 1 ? "" : "s", s.ranksPerNode);
  out += systemHeader(s);
  for (const std::string& line : model.describe()) out += "# model: " + line + "\n";
  for (const std::string& a : s.assumptions) out += "# system: " + a + "\n";
  out += fmt::format("# bound: the alpha-beta ring on {}\n", model.ringBottleneck());
  out += "# busbw = algbw x 2(p-1)/p (nccl-tests), GB/s = 1e9 B/s\n";
  out += fmt::format("# {:>12} {:>17} {:>3} {:>11} {:>10} {:>10} {:>16} {:>11} {:>11}\n",
                     "size (B)", "NCCL algo/proto", "ch", "time (us)", "algbw", "busbw", "regime",
                     "bound (us)", "bound busbw");
  const int p = s.ranks();
  for (std::uint64_t bytes : sizes) {
    const gpu::NcclPrediction pr = model.predict(bytes);
    const gpu::NcclChoice& c = pr.chosen;
    out += fmt::format(
        "  {:>12} {:>17} {:>3} {:>11.1f} {:>10.2f} {:>10.2f} {:>16} {:>11.1f} {:>11.2f}\n", bytes,
        choiceName(c), c.channels, c.time_s * 1e6, bytes / c.time_s / 1e9, c.busBw_Bps / 1e9,
        gpu::regimeName(pr.regime), pr.boundTime_s * 1e6,
        bytes / pr.boundTime_s * 2.0 * (p - 1) / p / 1e9);
  }
  return out;
}

nlohmann::json gpuCurveJson(const gpu::NcclModel& model, const std::vector<std::uint64_t>& sizes) {
  const gpu::GpuSystem& s = model.system();
  nlohmann::json rows = nlohmann::json::array();
  for (std::uint64_t bytes : sizes) {
    const gpu::NcclPrediction pr = model.predict(bytes);
    const gpu::NcclChoice& c = pr.chosen;
    rows.push_back({{"size_bytes", bytes},
                    {"algorithm", gpu::ncclAlgorithmName(c.algorithm)},
                    {"protocol", gpu::ncclProtocolName(c.protocol)},
                    {"channels", c.channels},
                    {"predicted_us", c.time_s * 1e6},
                    {"busbw_GBps", c.busBw_Bps / 1e9},
                    {"regime", gpu::regimeName(pr.regime)},
                    {"bound_us", pr.boundTime_s * 1e6}});
  }
  return {{"system",
           {{"name", s.name},
            {"title", s.title},
            {"description", gpu::describeSystem(s)},
            {"source", s.source}}},
          {"p", s.ranks()},
          {"nccl_figures", gpu::kNcclFigures},
          {"model", model.describe()},
          {"rows", rows}};
}

}  // namespace ringlab::report
