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
#include "ringlab/job/rank_world.hpp"
#include "ringlab/measure/calibrate.hpp"
#include "ringlab/report/calibration.hpp"

namespace ringlab::cli {
namespace {

struct CalibrateArgs {
  std::string transport = "inproc";
  JsonOutput json{"ringlab-profile.json"};
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
  a.json.checkWritable();
  const measure::RunInfo info = measure::currentRunInfo();
  a.json.printText(report::calibrationHeader(config.transport, info));
  ProgressLine line("calibrate");
  const measure::Calibration calibration = measure::calibrate(config, line.callback());
  line.finish();
  const model::Profile profile = measure::calibratedProfile(calibration, config.transport, info);
  a.json.printText(report::calibrationText(calibration, profile));
  a.json.write(model::toJson(profile).dump(2) + "\n");
  a.json.printText("# profile written to " + a.json.path + "\n");
  return 0;
}

}  // namespace

Action addCalibrateCommand(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "measure alpha, beta (ping-pong) and gamma (kernel) into a profile");
  cmd->add_option("--transport", args->transport, "inproc (ranks as threads)");
  args->json.add(*cmd, "profile file to write");
  args->sweep.add(*cmd, {false, false, false});
  addIterations(*cmd, args->iterations,
                "timed round trips (best taken) and kernel runs (median) per size");
  return [args, cmd] {
    args->transportGiven = cmd->count("--transport") > 0;
    return runCalibrateCommand(*args);
  };
}

}  // namespace ringlab::cli
