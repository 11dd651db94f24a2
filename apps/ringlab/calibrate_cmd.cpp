// `ringlab calibrate`: alpha and beta from point-to-point ping-pong over the transport at hand,
// gamma from the reduction kernel alone (measure::calibrate); prints the measurements and fits and
// writes the profile.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "option_groups.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/measure/calibrate.hpp"
#include "ringlab/report/calibration.hpp"

namespace ringlab::cli {
namespace {

struct CalibrateArgs {
  std::string transport = "inproc";
  JsonOutput json{"ringlab-profile.json"};
  SweepOptions sweep;
  int iterations = 20;
};

int runCalibrateCommand(const CalibrateArgs& a) {
  measure::CalibrateConfig config;
  config.transport = a.transport;
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
  a.json.printText(report::calibrationHeader(a.transport, info));
  const measure::Calibration calibration = measure::calibrate(config);
  const model::Profile profile = measure::calibratedProfile(calibration, a.transport, info);
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
  return [args] { return runCalibrateCommand(*args); };
}

}  // namespace ringlab::cli
