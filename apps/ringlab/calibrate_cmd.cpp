// `ringlab calibrate`: alpha and beta from point-to-point ping-pong over the transport at hand,
// gamma from the reduction kernel alone (measure::calibrate); prints the measurements and fits and
// writes the profile.
#include <cstdio>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "option_groups.hpp"
#include "progress_line.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/job/rank_world.hpp"
#include "ringlab/measure/calibrate.hpp"
#include "ringlab/report/calibration.hpp"

namespace ringlab::cli {
namespace {

struct CalibrateArgs {
  std::string transport = "inproc", out = "ringlab-profile.json";
  SweepOptions sweep;
  int iterations = 20;
  bool transportGiven = false;
};

int runCalibrateCommand(const CalibrateArgs& a) {
  measure::CalibrateConfig config;
  // Under a launcher without --transport: refused, not one calibration per process.
  config.transport = job::chooseTransport(
      a.transportGiven ? std::optional(a.transport) : std::nullopt, "calibrate", {"inproc"});
  config.iterations = a.iterations;
  config.minBytes = a.sweep.min();
  config.maxBytes = a.sweep.max();
  // The sizes as typed in the message (the library's own check names them in bytes).
  if (config.minBytes == 0 || config.minBytes > config.maxBytes || config.maxBytes > (1ull << 30)) {
    throwInvalid("-b/--minbytes " + a.sweep.minBytes + " and -e/--maxbytes " + a.sweep.maxBytes +
                 ": need 0 < min <= max <= 1G");
  }
  measure::validate(config);
  io::writeTextFile(a.out, "", "--out");  // refused before minutes of measuring, not after
  const measure::RunInfo info = measure::currentRunInfo();
  std::fputs(report::calibrationHeader(config.transport, info).c_str(), stdout);
  ProgressLine line("calibrate");
  const measure::Calibration calibration = measure::calibrate(config, line.callback());
  line.finish();
  const model::Profile profile = measure::calibratedProfile(calibration, config.transport, info);
  std::fputs(report::calibrationText(calibration, profile).c_str(), stdout);
  io::writeTextFile(a.out, model::toJson(profile).dump(2) + "\n", "--out");
  std::printf("# profile written to %s\n", a.out.c_str());
  return 0;
}

}  // namespace

Action addCalibrateCommand(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "measure alpha, beta (ping-pong) and gamma (kernel) into a profile");
  cmd->add_option("--transport", args->transport, "inproc (ranks as threads)");
  cmd->add_option("-o,--out", args->out, "profile file to write");
  args->sweep.add(*cmd, {false, false, false});
  cmd->add_option("-n,--iters", args->iterations,
                  "timed round trips (best taken) and kernel runs (median) per size");
  return [args, cmd] {
    args->transportGiven = cmd->count("--transport") > 0;
    return runCalibrateCommand(*args);
  };
}

}  // namespace ringlab::cli
