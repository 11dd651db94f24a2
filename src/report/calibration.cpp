#include "ringlab/report/calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ringlab/core/units.hpp"

namespace ringlab::report {

namespace {

// What to do about an unstable fit, in calibrate's report and wherever the profile is used.
const char* const kRecalibrate = "rerun with more rounds or iterations, on a quieter machine";

std::string concurrencyText(const record::Calibration& c) {
  std::string text = fmt::format(
      "# concurrent transfers: k ping-pong pairs of {} at once; aggregate rate = sum of "
      "bytes / one-way time\n# {:>6} {:>16} {:>12}\n",
      formatSize(c.concurrencyBytes), "pairs", "aggregate(GB/s)", "vs 1 pair");
  for (const record::ConcurrencyStep& s : c.concurrency) {
    text +=
        fmt::format("  {:6d} {:16.2f} {:12.2f}\n", s.pairs, s.bytesPerSecond / 1e9, s.overOnePair);
  }
  return text;
}

std::string fitText(const char* what, const record::FittedSizes& f, int rounds) {
  std::string text = fmt::format(
      "# {} per size, median of {} round{} (spread: max - min over the median); fit = intercept + "
      "slope x bytes through every round's point of the sizes in cache (below the working-set "
      "knee; all where fewer than two are), least squares on relative error; R^2 = "
      "{:.5f}\n# {:>12} {:>14} {:>10} {:>14} {:>10}\n",
      what, rounds, rounds == 1 ? "" : "s", f.fit.r2, "bytes", "measured(us)", "spread", "fit(us)",
      "residual");
  for (const record::SizeSummary& s : record::summarize(f)) {
    const double predicted = f.fit.intercept + f.fit.slope * static_cast<double>(s.bytes);
    text += fmt::format("  {:12} {:14.3f} {:9.1f}% {:14.3f} {:+9.1f}%\n", s.bytes,
                        s.medianSeconds * 1e6, 100 * s.relativeSpread, predicted * 1e6,
                        100 * (s.medianSeconds - predicted) / s.medianSeconds);
  }
  return text;
}

// "+-12.0%" of a coefficient, or "n/a" where no interval could be computed.
std::string halfWidthText(double halfWidth, double value) {
  if (!std::isfinite(halfWidth) || value == 0) return "n/a";
  return fmt::format("+-{:.1f}%", 100 * halfWidth / std::abs(value));
}

std::string intervalsText(const record::Calibration& c, const model::Profile& p) {
  const model::LineFit &link = c.link.fit, &red = c.reduce.fit;
  std::string text = fmt::format(
      "# 95% intervals (t over the residuals): alpha {} +- {}, beta {:.4f} +- {:.4f} ns/B, gamma "
      "{:.4f} +- {:.4f} ns/B ({}, {}, {} of the values)\n",
      formatMicros(link.intercept), formatMicros(link.interceptHalfWidth95), link.slope * 1e9,
      link.slopeHalfWidth95 * 1e9, red.slope * 1e9, red.slopeHalfWidth95 * 1e9,
      halfWidthText(link.interceptHalfWidth95, link.intercept),
      halfWidthText(link.slopeHalfWidth95, link.slope),
      halfWidthText(red.slopeHalfWidth95, red.slope));
  if (p.unstable.empty()) {
    text +=
        fmt::format("# fit: stable (every 95% interval within +-{:.0f}% of its value, R^2 >= {})\n",
                    100 * model::kUnstableRelativeHalfWidth, model::kUnstableR2);
  } else {
    text += std::string("# UNSTABLE fit: do not trust this profile; ") + kRecalibrate + ":\n";
    for (const std::string& reason : p.unstable) text += "#   " + reason + "\n";
  }
  return text;
}

std::string parametersText(const record::Calibration& c, const model::Profile& p) {
  const double beta = c.link.fit.slope, gamma = c.reduce.fit.slope;
  std::string text = fmt::format(
      "# alpha = {}, beta = {:.4f} ns/B ({:.2f} GB/s per direction), gamma = {:.4f} ns/B ({:.2f} "
      "GB/s), concurrent transfers = {:.2f}\n",
      formatMicros(p.params.link.alpha_s), beta * 1e9, 1e-9 / beta, gamma * 1e9, 1e-9 / gamma,
      c.concurrentTransfers);
  if (c.concurrentTransfers == 0) {
    text += "# concurrent transfers: not measured (p < 4 holds one pair); 0 = unlimited\n";
  }
  if (c.concurrencyCapped) {
    double best = 0;
    for (const record::ConcurrencyStep& s : c.concurrency) best = std::max(best, s.overOnePair);
    text += fmt::format(
        "# concurrent transfers: capped at the number of pairs (measured {:.2f}x one pair; the "
        "figure is never above the pairs that produced it)\n",
        best);
  }
  if (p.params.reduce.gamma_out_of_place_s_per_byte > 0) {
    text += fmt::format("# gamma out of place (c = a + b) = {:.4f} ns/B, {:.2f}x in place\n",
                        p.params.reduce.gamma_out_of_place_s_per_byte * 1e9,
                        p.params.reduce.gamma_out_of_place_s_per_byte / gamma);
  }
  const model::MemoryParams& m = p.params.memory;
  if (m.cache_bytes > 0) {
    text += fmt::format(
        "# memory regime: beyond a working set of {} per cache (the ranks' inputs, outputs and "
        "scratch; the cache is shared by {} of the host's {} cores): beta_mem = {:.4f} ns/B "
        "({:.2f} GB/s), gamma_mem = {:.4f} ns/B ({:.2f} GB/s), out of place {:.4f} ns/B; the "
        "ping-pong and "
        "kernel sizes beyond it (per byte, median), else beta and gamma plus what the probes' "
        "copy and reduction cost more there\n",
        formatSize(static_cast<std::uint64_t>(m.cache_bytes)), m.cache_cores, c.cores,
        m.beta_mem_s_per_byte * 1e9, 1e-9 / m.beta_mem_s_per_byte, m.gamma_mem_s_per_byte * 1e9,
        1e-9 / m.gamma_mem_s_per_byte, m.gamma_mem_out_of_place_s_per_byte * 1e9);
  } else {
    text += fmt::format(
        "# memory regime: none seen (no working set's per-byte time rose past {}x the fastest); "
        "one regime\n",
        model::kMemoryRegimeRatio);
  }
  const double fusedFrom = p.params.fusion.fused_reduce_from_bytes;
  text += fusedFrom > 0 ? fmt::format(
                              "# fused receives: reducing messages of {} and more are one "
                              "pass over the sender's buffer, priced gamma only (the "
                              "transport's single-copy size)\n",
                              formatSize(static_cast<std::uint64_t>(fusedFrom)))
                        : std::string(
                              "# fused receives: none (a reducing receive is priced as a "
                              "transfer and a reduction)\n");
  if (c.link.fit.intercept < 0) {
    text += fmt::format("# note: the fitted intercept was negative ({:.3f} us); alpha set to 0\n",
                        c.link.fit.intercept * 1e6);
  }
  return text;
}

}  // namespace

std::string calibrationHeader(const std::string& transport, int ranks,
                              const record::RunInfo& info) {
  return fmt::format(
      "# ringlab calibrate: transport {}, p {}, placement {}, host {}, version {}, date {}\n",
      transport, ranks, info.placement, info.host, info.version, info.date);
}

// The working-set probes and the knee, beside the caches the host reports.
std::string workingSetText(const record::Calibration& c) {
  std::string caches;
  for (const model::Profile::ReportedCache& cache : c.hostCaches) {
    caches += fmt::format("{}L{} {}", caches.empty() ? "" : ", ", cache.level,
                          formatSize(static_cast<std::uint64_t>(cache.bytes)));
    if (cache.sharedByCores > 0) caches += fmt::format(" (shared by {})", cache.sharedByCores);
  }
  std::string text = fmt::format(
      "# working sets: one core's copy and float32 sum (in place) with that much data going "
      "through its caches, best repetition, median of {} round{}; host: {} cores, caches {}\n"
      "# {:>12} {:>12} {:>12} {:>10}\n",
      c.rounds, c.rounds == 1 ? "" : "s", c.cores, caches.empty() ? "not reported" : caches,
      "bytes", "copy(GB/s)", "reduce(GB/s)", "regime");
  for (const model::WorkingSetRate& w : c.workingSets) {
    const bool beyond = c.cacheKneeBytes > 0 && static_cast<double>(w.bytes) > c.cacheKneeBytes;
    text += fmt::format("  {:12} {:12.2f} {:12.2f} {:>10}\n", w.bytes, 1e-9 / w.copySecondsPerByte,
                        1e-9 / w.reduceSecondsPerByte, beyond ? "memory" : "cache");
  }
  return text;
}

std::string calibrationText(const record::Calibration& c, const model::Profile& profile) {
  return concurrencyText(c) + workingSetText(c) +
         fitText(
             "point-to-point one-way time (ping-pong / 2 between ranks 0 and 1), best of the "
             "round trips",
             c.link, c.rounds) +
         fitText("reduction kernel on rank 0, float32 sum in place, median of the runs", c.reduce,
                 c.rounds) +
         fitText(
             "reduction kernel on rank 0, float32 sum out of place (c = a + b), median of the "
             "runs",
             c.reduceOutOfPlace, c.rounds) +
         parametersText(c, profile) + intervalsText(c, profile);
}

std::string unstableProfileWarning(const model::Profile& p, const std::string& path) {
  if (p.unstable.empty()) return "";
  std::string reasons;
  for (const std::string& reason : p.unstable) reasons += (reasons.empty() ? "" : "; ") + reason;
  return "warning: profile " + path + " is UNSTABLE: calibrate could not trust its fit (" +
         reasons + "), so predictions from it may be far off; calibrate again: " + kRecalibrate;
}

}  // namespace ringlab::report
