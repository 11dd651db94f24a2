#include "ringlab/report/calibration.hpp"

#include <fmt/format.h>

#include "ringlab/core/units.hpp"

namespace ringlab::report {
namespace {

std::string concurrencyText(const measure::Calibration& c) {
  std::string text = fmt::format(
      "# concurrent transfers: k ping-pong pairs of {} at once; aggregate rate = sum of "
      "bytes / one-way time\n# {:>6} {:>16} {:>12}\n",
      formatSize(c.concurrencyBytes), "pairs", "aggregate(GB/s)", "vs 1 pair");
  for (const measure::ConcurrencyStep& s : c.concurrency) {
    text +=
        fmt::format("  {:6d} {:16.2f} {:12.2f}\n", s.pairs, s.bytesPerSecond / 1e9, s.overOnePair);
  }
  return text;
}

std::string fitText(const char* what, const measure::FittedSizes& f) {
  std::string text = fmt::format(
      "# {} per size; fit = intercept + slope x bytes (least squares on relative error); "
      "R^2 = {:.5f}\n# {:>12} {:>14} {:>14} {:>10}\n",
      what, f.fit.r2, "bytes", "measured(us)", "fit(us)", "residual");
  for (std::size_t i = 0; i < f.sizes.size(); ++i) {
    const double predicted = f.seconds[i] - f.fit.residuals[i];
    text += fmt::format("  {:12} {:14.3f} {:14.3f} {:+9.1f}%\n", f.sizes[i], f.seconds[i] * 1e6,
                        predicted * 1e6, 100 * f.fit.residuals[i] / f.seconds[i]);
  }
  return text;
}

std::string parametersText(const measure::Calibration& c, const model::Profile& p) {
  const double beta = c.link.fit.slope, gamma = c.reduce.fit.slope;
  std::string text = fmt::format(
      "# alpha = {}, beta = {:.4f} ns/B ({:.2f} GB/s per direction), gamma = {:.4f} ns/B ({:.2f} "
      "GB/s), concurrent transfers = {:.2f}\n",
      formatMicros(p.params.link.alpha_s), beta * 1e9, 1e-9 / beta, gamma * 1e9, 1e-9 / gamma,
      c.concurrentTransfers);
  const model::MemoryParams& m = p.params.memory;
  if (m.cache_bytes > 0) {
    text += fmt::format(
        "# memory regime: messages above {}: beta_mem = {:.4f} ns/B ({:.2f} GB/s), gamma_mem = "
        "{:.4f} ns/B ({:.2f} GB/s); median per-byte time of the larger sizes\n",
        formatSize(static_cast<std::uint64_t>(m.cache_bytes)), m.beta_mem_s_per_byte * 1e9,
        1e-9 / m.beta_mem_s_per_byte, m.gamma_mem_s_per_byte * 1e9, 1e-9 / m.gamma_mem_s_per_byte);
  } else {
    text += "# memory regime: none seen (no size's per-byte time doubled); one regime\n";
  }
  if (c.link.fit.intercept < 0) {
    text += fmt::format("# note: the fitted intercept was negative ({:.3f} us); alpha set to 0\n",
                        c.link.fit.intercept * 1e6);
  }
  return text;
}

}  // namespace

std::string calibrationHeader(const std::string& transport, const measure::RunInfo& info) {
  return fmt::format("# ringlab calibrate: transport {}, host {}, version {}, date {}\n", transport,
                     info.host, info.version, info.date);
}

std::string calibrationText(const measure::Calibration& c, const model::Profile& profile) {
  return concurrencyText(c) +
         fitText("point-to-point one-way time (ping-pong / 2), best of the round trips", c.link) +
         fitText("reduction kernel, float32 sum in place, median of the runs", c.reduce) +
         parametersText(c, profile);
}

}  // namespace ringlab::report
