// `ringlab bench`: nccl-tests' all_reduce_perf, in shape and in column meaning. Parses the
// options, runs measure's sweep (ranks as threads, or this process as one rank of a job) and
// prints report's table; the record goes to --json.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "commands.hpp"
#include "option_groups.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/job/launcher.hpp"
#include "ringlab/job/rank_world.hpp"
#include "ringlab/measure/bench.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/report/bench_table.hpp"
#include "ringlab/report/pictures.hpp"
#include "ringlab/schedule/ring_shape.hpp"
#include "ringlab/transport/mpi.hpp"

namespace ringlab::cli {
namespace {

struct BenchArgs {
  int ranks = 4;
  SweepOptions sweep;
  std::string segment = "256K", transport = "inproc", json;
  std::string svg;                    // --svg: busbw against size
  std::vector<std::string> overlays;  // --overlay: other runs drawn beside this one
  int iterations = 20, warmup = 2, check = 1;
  double secondsPerSize = 0;  // -T/--time
  bool peerMpi = false, samples = false;
  bool ranksGiven = false;  // -p on the command line (processes take p from their launcher)
  double timeoutSeconds = 60;
  std::string modelProfile;  // --model: add predicted time and measured/predicted
  std::string tuned;         // --tuned: decision table that --algo auto prefers to the model
  AlgorithmOptions algorithm;
  // --topo / --topo-file / --placement: the machine the ranks run on, named in the record.
  TopologyOptions topology;
};

// The checks that need the options as typed, before anything is built from them.
std::chrono::milliseconds checkArgs(const BenchArgs& args) {
  checkRanks(args.ranks);
  if (args.peerMpi && args.transport != "mpi") {
    throwInvalid(
        "--peer-mpi times MPI_Allreduce beside ringlab under mpirun: it needs --transport mpi");
  }
  args.sweep.factor();
  if (!args.overlays.empty() && args.svg.empty())
    throwInvalid("--overlay draws other runs into the --svg picture: add --svg FILE");
  if (args.check != 0 && args.check != 1)
    throwInvalid("-c/--check " + std::to_string(args.check) + ": must be 0 or 1");
  return exec::timeoutFromSeconds(args.timeoutSeconds, "--timeout");
}

measure::BenchConfig benchConfig(const BenchArgs& args, std::chrono::milliseconds timeout) {
  measure::BenchConfig config;
  config.ranks = args.ranks;
  args.sweep.fill(config);
  config.iterations = args.iterations;
  config.secondsPerSize = args.secondsPerSize;
  config.warmup = args.warmup;
  config.check = args.check == 1;
  config.keepSamples = args.samples;
  config.collective.algorithm = args.algorithm.resolve(args.ranks);
  config.collective.exec.segmentBytes = parseSize(args.segment);
  config.collective.exec.timeout = timeout;
  if (!args.modelProfile.empty()) {
    config.profile = readProfile(args.modelProfile);
    config.collective.autoModel = config.profile->params;  // auto chooses with the same model
  }
  if (!args.tuned.empty()) {
    if (config.collective.algorithm.name != model::kAutoAlgorithm) {
      throwInvalid("--tuned " + args.tuned + " is used by --algo auto only; add --algo auto");
    }
    config.collective.autoTable =
        std::make_shared<model::DecisionTable>(readDecisionTable(args.tuned));
    if (config.collective.autoTable->ranks != config.ranks) {
      throwInvalid("--tuned " + args.tuned +
                   " was measured at p = " + std::to_string(config.collective.autoTable->ranks) +
                   ", this run has p = " + std::to_string(config.ranks) + "; tune at this p");
    }
  }
  return config;
}

// What the record says about the run: the machine the user named, or what the transport implies.
measure::RunRecord benchRecord(const BenchArgs& args, const measure::BenchConfig& config) {
  measure::RunInfo info = measure::currentRunInfo();
  info.transport = args.transport;
  info.ringOrder = schedule::ringOrderText(config.collective.algorithm, args.ranks);
  const measure::LaunchDescription launch =
      measure::describeLaunch(args.transport, args.topology, args.ranks);
  info.topology = launch.topology;
  info.placement = launch.placement;
  return measure::startRecord(config, std::move(info));
}

// Runs the sweep, printing each row as it comes (with a progress line on a terminal); the rows
// go into the record. Returns the number of wrong elements over all rows.
std::uint64_t measureAndPrint(const measure::BenchConfig& config, Communicator* processComm,
                              measure::RunRecord& record) {
  const report::BenchColumns columns{static_cast<bool>(config.peer), config.profile.has_value(),
                                     config.collective.algorithm.name == model::kAutoAlgorithm};
  std::fputs(report::benchTableHeader(columns).c_str(), stdout);
  std::fflush(stdout);
  const std::vector<std::uint64_t> sizes = measure::sweepSizes(config);
  const bool progress = isatty(STDERR_FILENO) && sizes.size() > 4;
  std::uint64_t totalWrong = 0;
  const auto onRow = [&](const measure::RecordRow& row) {
    if (progress) std::fprintf(stderr, "\r\033[K");
    std::fputs(
        report::benchTableRow(row, config.ranks, record.run.dtype, record.run.op, columns).c_str(),
        stdout);
    std::fflush(stdout);
    for (const auto& t : {row.outOfPlace, row.inPlace, row.peer}) {
      if (t) totalWrong += t->wrong.value_or(0);
    }
    record.rows.push_back(row);
    const std::size_t done = record.rows.size();
    if (progress && done < sizes.size()) {
      std::fprintf(stderr, "[%zu/%zu] next: %s", done, sizes.size(),
                   formatSize(sizes[done]).c_str());
    }
  };
  if (processComm) {
    measure::runBenchRank(config, *processComm, onRow);
  } else {
    measure::runBenchThreads(config, onRow);
  }
  return totalWrong;
}

int runBenchCommand(BenchArgs args) {
  const auto timeout = checkArgs(args);
  // A rank process takes p from its launcher or MPI, before anything (a ring order, a tuned
  // table) is checked against p.
  job::Participation part = job::participate(args.transport, args.ranks, args.ranksGiven, timeout);
  args.ranks = part.ranks;
  measure::BenchConfig config = benchConfig(args, timeout);
  // Fail on a bad algorithm or an unwritable --json before printing anything or measuring.
  measure::validate(config);
  if (part.role == job::Participation::Role::Launcher)
    return job::launch({args.ranks, job::selfCommand(), timeout + std::chrono::seconds(5)});
  std::unique_ptr<Communicator> processComm;
  if (part.role == job::Participation::Role::Rank) {
    processComm = std::make_unique<Communicator>(*part.world.transport);
    if (args.peerMpi) {
      config.peer = transport::mpiAllreduce;
      config.peerLibrary = transport::mpiLibraryVersion();
    }
  }
  if (!job::speaksForTheJob(part)) {
    args.json.clear();
    args.svg.clear();
  }
  // Unwritable outputs and unreadable overlays are refused before measuring.
  if (!args.json.empty()) io::writeTextFile(args.json, "", "--json");
  if (!args.svg.empty()) io::writeTextFile(args.svg, "", "--svg");
  std::vector<report::Overlay> overlays;
  for (const std::string& file : args.overlays)
    overlays.push_back(
        {std::filesystem::path(file).filename().string(), measure::readRecord(file, "--overlay")});
  measure::RunRecord record = benchRecord(args, config);
  std::fputs(report::benchPreamble(config, record.run, args.tuned, args.modelProfile).c_str(),
             stdout);
  const std::uint64_t totalWrong = measureAndPrint(config, processComm.get(), record);
  std::printf("# wrong elements in total: %llu\n", static_cast<unsigned long long>(totalWrong));
  if (!args.json.empty())
    io::writeTextFile(args.json, measure::toJson(record).dump(2) + "\n", "--json");
  if (!args.svg.empty()) {
    io::writeTextFile(args.svg, report::chartSvg(report::benchChart(record, overlays)), "--svg");
    std::printf("# busbw plot written to %s\n", args.svg.c_str());
  }
  return totalWrong == 0 ? 0 : 1;
}

}  // namespace

Action addBenchCommand(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd =
      app.add_subcommand("bench", "measure AllReduce over a size sweep (nccl-tests style)");
  cmd->add_option("-p,--ranks", args->ranks, "number of ranks");
  args->sweep.add(*cmd);
  cmd->add_option("-n,--iters", args->iterations, "timed iterations per size");
  cmd->add_option("-w,--warmup_iters", args->warmup, "untimed iterations before timing");
  cmd->add_option("-c,--check", args->check, "1: check every size against the closed-form result");
  cmd->add_option("--transport", args->transport,
                  "inproc (ranks as threads), shm or tcp (ranks as processes on this host, "
                  "launched for you, "
                  "or started by `ringlab launch`/torchrun variables), mpi (under mpirun)");
  cmd->add_option("--segment", args->segment, "pipeline segment size");
  cmd->add_option("--timeout", args->timeoutSeconds, "seconds to wait for any one message");
  cmd->add_option("--json", args->json, "also write the results as JSON to this file");
  cmd->add_option(
      "--svg", args->svg,
      "also draw busbw against size (SVG), with the model's line when a profile is given");
  cmd->add_option("--overlay", args->overlays,
                  "draw these runs too in --svg: `ringlab bench --json` files or nccl-tests logs")
      ->delimiter(',');
  cmd->add_option("--tuned", args->tuned, "decision table from `ringlab tune` for --algo auto");
  cmd->add_option("--model,--profile", args->modelProfile,
                  "profile (ringlab calibrate): add predicted time and measured/predicted");
  args->algorithm.add(*cmd);
  args->topology.add(*cmd, false);
  cmd->add_option("-T,--time", args->secondsPerSize,
                  "iterate about this many seconds per size instead of -n (0: use -n)");
  cmd->add_flag("--samples", args->samples,
                "keep every iteration's time in the --json record (samples_us)");
  cmd->add_flag("--peer-mpi", args->peerMpi,
                "also time MPI_Allreduce on the same buffers (--transport mpi, under mpirun)");
  return [args, cmd] {
    args->ranksGiven = cmd->count("-p") > 0;
    return runBenchCommand(*args);
  };
}

}  // namespace ringlab::cli
