// `ringlab calibrate`: alpha and beta from point-to-point ping-pong over the transport the job
// uses, gamma from the reduction kernel alone (measure::calibrateRank, in interleaved rounds);
// prints the measurements, the fits with their 95% intervals and residuals, and writes the profile.
// Ranks as threads (inproc), or this process as one rank of a job (shm, tcp, mpi) as bench does.
#include <cstdio>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "measure_labels.hpp"
#include "option_groups.hpp"
#include "progress_line.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/job/launcher.hpp"
#include "ringlab/job/rank_world.hpp"
#include "ringlab/measure/calibrate.hpp"
#include "ringlab/measure/launch_description.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/report/calibration.hpp"
#include "transport_option.hpp"

namespace ringlab::cli {
namespace {

struct CalibrateArgs {
  TransportOption transport;
  int ranks = kDefaultRanks;
  JsonOutput json{"ringlab-profile.json"};
  SweepOptions sweep;
  int iterations = 20;
  int rounds = 3;
  std::string timeout = "60s";
  bool ranksGiven = false;
};

measure::CalibrateConfig calibrateConfig(const CalibrateArgs& a) {
  measure::CalibrateConfig config;
  config.transport = a.transport.entry().name;  // an unknown one named as --transport
  config.labels = measureFlagLabels();
  config.ranks = a.ranks;
  config.iterations = a.iterations;
  config.rounds = a.rounds;
  config.minBytes = a.sweep.min();
  config.maxBytes = a.sweep.max();
  config.timeout = exec::timeoutFromSeconds(parseSeconds(a.timeout), "--timeout");
  // The sizes as typed in the message (the library's own check names them in bytes).
  if (config.minBytes == 0 || config.minBytes > config.maxBytes || config.maxBytes > (1ull << 30)) {
    throwInvalid("-b/--minbytes " + a.sweep.minBytes + " and -e/--maxbytes " + a.sweep.maxBytes +
                 ": need 0 < min <= max <= 1G");
  }
  measure::validate(config);
  return config;
}

int runCalibrateCommand(CalibrateArgs a) {
  measure::CalibrateConfig config = calibrateConfig(a);
  // Under a launcher without --transport: the launcher's, as bench.
  job::Participation part =
      job::join(a.transport.jobRequest("calibrate", config.ranks, a.ranksGiven, config.timeout));
  config.transport = part.transport->name;
  if (part.role == job::Participation::Role::Launcher) {
    a.json.checkWritable();
    return job::launchCopies(part, config.timeout);
  }
  if (part.role == job::Participation::Role::Rank) config.ranks = part.ranks;
  const bool speaks = job::speaksForTheJob(part);
  if (!speaks) a.json.path.clear();
  a.json.checkWritable();
  record::RunInfo info = record::currentRunInfo();
  info.transport = config.transport;
  info.placement = measure::describeLaunch(config.transport).placement;
  ProgressLine line("calibrate");
  const record::Calibration calibration =
      part.role == job::Participation::Role::Rank
          ? measure::calibrateRank(config, *part.world.transport, line.callback())
          : measure::calibrate(config, line.callback());
  line.finish();
  if (!speaks) return 0;
  a.json.printText(report::calibrationHeader(config.transport, calibration.ranks, info));
  const model::Profile profile =
      measure::calibratedProfile(calibration, config.transport, info, config.labels);
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
  args->transport.add(*cmd, kMeasuringTransportHelp);
  addRanks(*cmd, args->ranks,
           "number of ranks: calibrate at the p of the job to predict (pairs for concurrency: "
           "p/2)");
  args->json.add(*cmd, "profile file to write");
  args->sweep.add(*cmd, {false, false, false});
  addIterations(*cmd, args->iterations,
                "timed round trips (best taken) and kernel runs (median) per size and round");
  cmd->add_option("--rounds", args->rounds,
                  "interleaved rounds of every measurement, the order rotated between rounds; "
                  "the spread between them gives the 95% intervals");
  addTime(*cmd, "--timeout", args->timeout, "the deadline of each message, e.g. 60s");
  return [args, cmd] {
    args->transport.noteGiven(*cmd);
    args->ranksGiven = cmd->count("-p") > 0;
    return runCalibrateCommand(*args);
  };
}

}  // namespace ringlab::cli
