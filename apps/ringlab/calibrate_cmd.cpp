// `ringlab calibrate`: alpha and beta from point-to-point ping-pong over the transport at hand,
// gamma from the reduction kernel alone (measure::calibrate); prints the measurements and fits and
// writes the profile.
#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/measure/calibrate.hpp"

namespace ringlab::cli {
namespace {

struct CalibrateArgs {
  std::string transport = "inproc", out = "ringlab-profile.json";
  std::string minBytes = "8", maxBytes = "64M";
  int iterations = 20;
};

measure::CalibrateConfig calibrateConfig(const CalibrateArgs& a) {
  measure::CalibrateConfig config;
  config.transport = a.transport;
  config.iterations = a.iterations;
  config.minBytes = parseSize(a.minBytes);
  config.maxBytes = parseSize(a.maxBytes);
  // The sizes as typed in the message (the library's own check names them in bytes).
  if (config.minBytes == 0 || config.minBytes > config.maxBytes || config.maxBytes > (1ull << 30)) {
    throwInvalid("-b/--minbytes " + a.minBytes + " and -e/--maxbytes " + a.maxBytes +
                 ": need 0 < min <= max <= 1G");
  }
  return config;
}

void printConcurrency(const measure::Calibration& c) {
  std::printf(
      "# concurrent transfers: k ping-pong pairs of %s at once; aggregate rate = sum of "
      "bytes / one-way time\n",
      formatSize(c.concurrencyBytes).c_str());
  std::printf("# %6s %16s %12s\n", "pairs", "aggregate(GB/s)", "vs 1 pair");
  for (const measure::ConcurrencyStep& s : c.concurrency)
    std::printf("  %6d %16.2f %12.2f\n", s.pairs, s.bytesPerSecond / 1e9, s.overOnePair);
}

void printFit(const char* what, const measure::FittedSizes& f) {
  std::printf(
      "# %s per size; fit = intercept + slope x bytes (least squares on relative error); "
      "R^2 = %.5f\n",
      what, f.fit.r2);
  std::printf("# %12s %14s %14s %10s\n", "bytes", "measured(us)", "fit(us)", "residual");
  for (std::size_t i = 0; i < f.sizes.size(); ++i) {
    const double predicted = f.seconds[i] - f.fit.residuals[i];
    std::printf("  %12llu %14.3f %14.3f %+9.1f%%\n", static_cast<unsigned long long>(f.sizes[i]),
                f.seconds[i] * 1e6, predicted * 1e6, 100 * f.fit.residuals[i] / f.seconds[i]);
  }
}

void printProfile(const measure::Calibration& c, const model::Profile& p) {
  const double beta = c.link.fit.slope, gamma = c.reduce.fit.slope;
  std::printf(
      "# alpha = %s, beta = %.4f ns/B (%.2f GB/s per direction), gamma = %.4f ns/B (%.2f GB/s), "
      "concurrent transfers = %.2f\n",
      formatMicros(p.params.link.alpha_s).c_str(), beta * 1e9, 1e-9 / beta, gamma * 1e9,
      1e-9 / gamma, c.concurrentTransfers);
  const model::MemoryParams& m = p.params.memory;
  if (m.cache_bytes > 0) {
    std::printf(
        "# memory regime: messages above %s: beta_mem = %.4f ns/B (%.2f GB/s), gamma_mem = %.4f "
        "ns/B "
        "(%.2f GB/s); median per-byte time of the larger sizes\n",
        formatSize(static_cast<std::uint64_t>(m.cache_bytes)).c_str(), m.beta_mem_s_per_byte * 1e9,
        1e-9 / m.beta_mem_s_per_byte, m.gamma_mem_s_per_byte * 1e9, 1e-9 / m.gamma_mem_s_per_byte);
  } else {
    std::printf("# memory regime: none seen (no size's per-byte time doubled); one regime\n");
  }
  if (c.link.fit.intercept < 0)
    std::printf("# note: the fitted intercept was negative (%.3f us); alpha set to 0\n",
                c.link.fit.intercept * 1e6);
}

int runCalibrateCommand(const CalibrateArgs& a) {
  const measure::CalibrateConfig config = calibrateConfig(a);
  measure::validate(config);
  std::ofstream out(a.out);
  if (!out) throwInvalid("--out " + a.out + ": cannot open for writing");

  const measure::RunInfo info = measure::currentRunInfo();
  std::printf("# ringlab calibrate: transport %s, host %s, version %s, date %s\n",
              a.transport.c_str(), info.host.c_str(), info.version.c_str(), info.date.c_str());
  const measure::Calibration calibration = measure::calibrate(config);
  printConcurrency(calibration);
  printFit("point-to-point one-way time (ping-pong / 2), best of the round trips",
           calibration.link);
  printFit("reduction kernel, float32 sum in place, median of the runs", calibration.reduce);
  const model::Profile profile = measure::calibratedProfile(calibration, a.transport, info);
  printProfile(calibration, profile);
  out << model::toJson(profile).dump(2) << "\n";
  std::printf("# profile written to %s\n", a.out.c_str());
  return 0;
}

}  // namespace

Action addCalibrateCommand(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "measure alpha, beta (ping-pong) and gamma (kernel) into a profile");
  cmd->add_option("--transport", args->transport, "inproc (ranks as threads)")
      ->capture_default_str();
  cmd->add_option("-o,--out", args->out, "profile file to write")->capture_default_str();
  cmd->add_option("-b,--minbytes", args->minBytes, "smallest ping-pong size")
      ->capture_default_str();
  cmd->add_option("-e,--maxbytes", args->maxBytes, "largest ping-pong size (sizes grow x4)")
      ->capture_default_str();
  cmd->add_option("-n,--iters", args->iterations,
                  "timed round trips (best taken) and kernel runs (median) per size")
      ->capture_default_str();
  return [args] { return runCalibrateCommand(*args); };
}

}  // namespace ringlab::cli
