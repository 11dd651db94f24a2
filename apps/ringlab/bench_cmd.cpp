// `ringlab bench`: nccl-tests' all_reduce_perf, in shape and in column meaning. Parses the
// options, runs measure's sweep (ranks as threads, or this process as one rank of a job) and
// prints report's table; the record goes to --json.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "measure_labels.hpp"
#include "option_groups.hpp"
#include "progress_line.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/job/launch_environment.hpp"
#include "ringlab/job/launcher.hpp"
#include "ringlab/job/rank_world.hpp"
#include "ringlab/measure/bench.hpp"
#include "ringlab/measure/launch_description.hpp"
#include "ringlab/measure/roofline_rows.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/model/roofline.hpp"
#include "ringlab/record/statistics.hpp"
#include "ringlab/report/bench_table.hpp"
#include "ringlab/report/calibration.hpp"
#include "ringlab/report/pictures.hpp"
#include "ringlab/report/roofline_text.hpp"
#include "ringlab/schedule/ring_shape.hpp"
#include "ringlab/transport/mpi.hpp"
#include "transport_option.hpp"

namespace ringlab::cli {
namespace {

// nccl-tests flags that have no meaning for ranks on CPUs, or have another name here: parsed, so
// that the error says why instead of "arguments were not expected". From nccl-tests' README and
// src/common.cu (getopt_long's table).
struct RefusedFlag {
  const char* names;
  const char* why;
};
constexpr RefusedFlag kRefusedFlags[] = {
    {"-g,--ngpus",
     "GPUs per thread: ringlab's ranks are CPU threads or processes; set their number with -p"},
    {"-t,--nthreads",
     "threads per process: ringlab runs -p ranks, as threads (--transport inproc) or as "
     "processes (shm, tcp, mpi); set their number with -p"},
    {"-G,--cudagraph", "CUDA graph launches: ringlab's ranks run on CPUs, with no CUDA graphs"},
    {"-R,--local_register",
     "NCCL buffer registration: ringlab's buffers are host memory, with nothing to register"},
    {"-D,--device_implementation", "NCCL's device API: ringlab's ranks run on CPUs"},
    {"-V,--device_cta_count", "CTAs are GPU thread blocks: ringlab's ranks run on CPUs"},
    {"-x,--cta_policy", "NCCL's CTA policy is for GPUs: ringlab's ranks run on CPUs"},
    {"-y,--stream_null", "CUDA streams: ringlab's ranks run on CPUs"},
    {"-m,--agg_iters",
     "grouped operations: each ringlab iteration is one allreduce (time more with -n)"},
    {"-I,--per_iter_timing",
     "ringlab times every iteration already: --stats picks the columns, --samples keeps them "
     "in --json"},
    {"-J,--output_file", "the JSON file is --json FILE here"},
    {"-r,--root", "allreduce has no root"},
};

struct BenchArgs {
  int ranks = kDefaultRanks;
  SweepOptions sweep;
  std::string segment = "256K";
  TransportOption transport;
  JsonOutput json;
  std::string svg;                    // --svg: busbw against size
  std::vector<std::string> overlays;  // --overlay: other runs drawn beside this one
  int iterations = 20, warmup = 2, check = 1;
  std::string timePerSize = "0";  // --time: iterate about this long per size instead of -n
  long long average = 3;          // -a: nccl-tests' number (its default is 1; ringlab's the max)
  std::string stats = "median";   // --stats
  const RefusedFlag* refused = nullptr;  // an nccl-tests flag given that does not apply here
  std::string refusedValue;              // what it was given (unused)
  bool peerMpi = false, samples = false;
  bool roofline = false;  // --roofline: each row against this machine's copy/reduce/loopback limit
  bool ranksGiven = false;  // -p on the command line (processes take p from their launcher)
  std::string timeout = "60s";
  std::string profile;  // --profile: add predicted time and measured/predicted
  std::string gamma;    // --gamma: the profile's reduction cost, overridden
  bool profileAnyTransport = false;
  std::string tuned;  // --tuned: decision table that --algo auto prefers to the model
  AlgorithmOptions algorithm;
  // --topo / --topo-file / --placement: the machine the ranks run on, named in the record.
  TopologyOptions topology;
};

// The checks that need the options as typed, before anything is built from them.
void checkArgs(const BenchArgs& args, const job::TransportEntry& transport) {
  if (args.refused) {
    throwInvalid(std::string(args.refused->names).replace(2, 1, "/") +
                 " (nccl-tests' flag) does not apply: " + args.refused->why);
  }
  checkRanks(args.ranks);
  if (args.peerMpi && transport.start != job::RankStart::Mpi) {
    throwInvalid(
        "--peer-mpi times MPI_Allreduce beside ringlab under mpirun: it needs --transport mpi");
  }
  args.sweep.factor();
  record::parseStatistics(args.stats, "--stats");  // refused before any rank process starts
  if (!args.overlays.empty() && args.svg.empty())
    throwInvalid("--overlay draws other runs into the --svg picture: add --svg FILE");
  if (args.roofline) job::transportTraffic(transport.name);  // refused before measuring (mpi)
  if (!args.svg.empty() && (args.sweep.dtype == "all" || args.sweep.op == "all"))
    throwInvalid("--svg draws one busbw curve: with it, name one -d datatype and one -o op");
}

measure::BenchConfig benchConfig(const BenchArgs& args, const job::Participation& part,
                                 std::chrono::milliseconds timeout) {
  measure::BenchConfig config;
  config.transport = part.transport->name;
  config.labels = measureFlagLabels();
  config.ranks = part.ranks;
  args.sweep.fill(config);
  config.iterations = args.iterations;
  config.secondsPerSize = parseSeconds(args.timePerSize);
  config.warmup = args.warmup;
  config.check = args.check;
  config.overRanks = record::overRanksFromCode(args.average, "-a/--average");
  config.keepSamples = args.samples;
  config.collective.algorithm = args.algorithm.resolve(part.ranks);
  config.collective.exec.segmentBytes = parseSize(args.segment);
  config.collective.exec.timeout = timeout;
  if (!args.profile.empty()) {
    config.profile = readProfile(args.profile);
    if (!args.gamma.empty()) {
      // One gamma given: it prices in-place and out-of-place reductions alike, as in the model.
      config.profile->params.reduce.gamma_s_per_byte = parseSecondsPerByte(args.gamma);
      config.profile->params.reduce.gamma_out_of_place_s_per_byte = 0;
    }
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
record::RunRecord benchRecord(const BenchArgs& args, const measure::BenchConfig& config) {
  record::RunInfo info = record::currentRunInfo();
  info.transport = config.transport;
  info.ringOrder = schedule::ringOrderText(config.collective.algorithm, config.ranks);
  const measure::LaunchDescription launch =
      measure::describeLaunch(config.transport, args.topology, config.ranks);
  info.topology = launch.topology;
  info.placement = launch.placement;
  return measure::startRecord(config, std::move(info));
}

// Runs the sweep, printing each row as it comes (with a progress line on a terminal); the rows
// go into the record. Returns the number of wrong elements over all rows.
std::uint64_t measureAndPrint(measure::BenchConfig& config, Communicator* processComm,
                              const report::BenchColumns& columns, record::RunRecord& record,
                              const JsonOutput& json) {
  json.printText(report::benchTableHeader(columns));
  ProgressLine line("bench");
  config.progress = line.callback();
  std::uint64_t totalWrong = 0;
  const auto onRow = [&](const record::RecordRow& row) {
    if (!json.toStdout())
      line.print(report::benchTableRow(row, config.ranks, row.dtype, row.op, columns));
    for (const auto& t : {row.outOfPlace, row.inPlace, row.peer}) {
      if (t) totalWrong += t->wrong.value_or(0);
    }
    record.rows.push_back(row);
  };
  if (processComm) {
    measure::runBenchRank(config, *processComm, onRow);
  } else {
    measure::runBenchThreads(config, onRow);
  }
  return totalWrong;
}

int runBenchCommand(BenchArgs args) {
  const auto timeout = exec::timeoutFromSeconds(parseSeconds(args.timeout), "--timeout");
  // Under mpirun or torchrun without --transport: the launcher's, not p separate runs. A rank
  // process takes p from its launcher or MPI, before anything (a ring order, a tuned table) is
  // checked against p.
  job::Participation part =
      job::join(args.transport.jobRequest("bench", args.ranks, args.ranksGiven, timeout));
  checkArgs(args, *part.transport);
  measure::BenchConfig config = benchConfig(args, part, timeout);
  // A profile or table from another transport is refused here, once, before any rank starts.
  const model::SetupUse use = setupUse(config.transport, config.ranks, args.profileAnyTransport);
  const std::string profileNote =
      config.profile ? model::checkProfileUse(*config.profile, args.profile, use) : "";
  const std::string tableNote =
      config.collective.autoTable
          ? model::checkDecisionTableUse(*config.collective.autoTable, args.tuned, use)
          : "";
  // Fail on a bad algorithm or an unwritable --json before printing anything or measuring.
  measure::validate(config);
  if (part.role == job::Participation::Role::Launcher) return job::launchCopies(part, timeout);
  std::unique_ptr<Communicator> processComm;
  if (part.role == job::Participation::Role::Rank) {
    processComm = std::make_unique<Communicator>(*part.world.transport);
    if (args.peerMpi) {
      config.peer = transport::mpiAllreduce;
      config.peerLibrary = transport::mpiLibraryVersion();
    }
  }
  const bool speaks = job::speaksForTheJob(part);
  if (!speaks) {
    args.json.path.clear();
    args.svg.clear();
  }
  // Unwritable outputs and unreadable overlays are refused before measuring.
  args.json.checkWritable();
  if (!args.svg.empty()) io::writeTextFile(args.svg, "", "--svg");
  std::vector<report::Overlay> overlays;
  for (const std::string& file : args.overlays) {
    overlays.push_back(
        {std::filesystem::path(file).filename().string(), record::readRecord(file, "--overlay")});
    record::requireOneCase(overlays.back().record, "--overlay " + file);
  }
  record::RunRecord record = benchRecord(args, config);
  const report::BenchColumns columns{static_cast<bool>(config.peer), config.profile.has_value(),
                                     config.collective.algorithm.name == model::kAutoAlgorithm,
                                     record::parseStatistics(args.stats, "--stats")};
  args.json.printText(report::benchPreamble(measure::benchSettings(config), record.run,
                                            columns.stats, args.tuned, args.profile));
  if (!profileNote.empty()) args.json.printText("# " + profileNote + "\n");
  if (config.profile) {
    const std::string unstable = report::unstableProfileWarning(*config.profile, args.profile);
    if (!unstable.empty()) args.json.printText("# " + unstable + "\n");
  }
  if (!tableNote.empty()) args.json.printText("# " + tableNote + "\n");
  args.json.printText(report::oversubscription(
      job::ranksOnThisHost(config.transport, config.ranks, job::detectLaunchEnvironment()),
      config.ranks, job::usableCores(config.transport)));
  const std::uint64_t totalWrong =
      measureAndPrint(config, processComm.get(), columns, record, args.json);
  args.json.printText("# wrong elements in total: " + std::to_string(totalWrong) + "\n");
  args.json.printText(report::cpuTimeTable(record, job::usableCores(config.transport)));
  nlohmann::json json = record::toJson(record);
  // Priced after the sweep, on the rank that speaks for the job: the other ranks are gone and
  // leave the cores to the rate measurements.
  if (args.roofline && speaks) {
    const record::RooflineReport roof =
        measure::priceRows(record, config, config.transport, part.world.transport.get(),
                           job::usableCores(config.transport));
    args.json.printText(report::rooflineTable(roof));
    json["roofline"] = record::toJson(roof);
  }
  if (args.json.given()) args.json.write(json.dump(2) + "\n");
  if (!args.svg.empty()) {
    io::writeTextFile(args.svg, report::chartSvg(report::benchChart(record, overlays)), "--svg");
    args.json.printText("# busbw plot written to " + args.svg + "\n");
  }
  return totalWrong == 0 ? 0 : 1;
}

}  // namespace

Action addBenchCommand(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd =
      app.add_subcommand("bench", "measure AllReduce over a size sweep (nccl-tests style)");
  addRanks(*cmd, args->ranks);
  args->sweep.add(*cmd, {.all = true});
  addIterations(*cmd, args->iterations, "timed iterations per size");
  addWarmup(*cmd, args->warmup, "untimed iterations before timing");
  cmd->add_option("-c,--check", args->check,
                  "checked runs per size, each against the closed-form result (0: none)");
  cmd->add_option("-a,--average", args->average,
                  "an iteration's time over ranks: 0 rank 0, 1 mean, 2 min, 3 max (nccl-tests' "
                  "numbers; its default is 1)");
  cmd->add_option("--stats", args->stats,
                  "statistics to show: median, min, max, mean over iterations, or loop (each "
                  "rank's mean over its iterations, then -a over ranks: nccl-tests' time); the "
                  "first fills time, algbw, busbw; --json has all of them");
  for (const RefusedFlag& flag : kRefusedFlags)
    // Hidden, and refused when given, with or without a value.
    cmd->add_option(flag.names, args->refusedValue)->group("")->expected(0, 1);
  args->transport.add(*cmd, kMeasuringTransportHelp);
  cmd->add_option("--segment", args->segment, "pipeline segment size");
  addTime(*cmd, "--timeout", args->timeout,
          "the deadline of each collective call, from its start, e.g. 60s");
  args->json.add(*cmd, "also write the results as JSON to this file");
  addSvg(*cmd, args->svg,
         "also draw busbw against size (SVG), with the model's line when a profile is given");
  cmd->add_option("--overlay", args->overlays,
                  "draw these runs too in --svg: `ringlab bench --json` files or nccl-tests logs")
      ->type_name("FILE")
      ->delimiter(',');
  cmd->add_option("--tuned", args->tuned, "decision table from `ringlab tune` for --algo auto")
      ->type_name("FILE");
  addProfile(*cmd, args->profile,
             "profile (ringlab calibrate): add predicted time and measured/predicted");
  addPerByteCost(*cmd, "--gamma", args->gamma,
                 "the profile's reduction cost per byte (0.05ns/B) or rate (20GB/s), overridden")
      ->needs(cmd->get_option("--profile"));
  addProfileAnyTransport(*cmd, args->profileAnyTransport);
  args->algorithm.add(*cmd);
  args->topology.add(*cmd, false);
  addTime(*cmd, "--time", args->timePerSize,
          "iterate about this long per size instead of -n, e.g. 50ms (0: use -n)");
  cmd->add_flag("--samples", args->samples,
                "keep every iteration's time in the --json record (samples_us), and each "
                "rank's (rank_samples_us)");
  cmd->add_flag("--roofline", args->roofline,
                "after the sweep, price each row against this machine's limit: the time its "
                "memory traffic needs at the copy and reduce rates (tcp: the loopback rate) "
                "measured here, and the row's share of it (docs/roofline.md)");
  cmd->add_flag("--peer-mpi", args->peerMpi,
                "also time MPI_Allreduce on the same buffers (--transport mpi, under mpirun)");
  return [args, cmd] {
    args->ranksGiven = cmd->count("-p") > 0;
    for (const RefusedFlag& flag : kRefusedFlags) {
      if (cmd->count(std::string(flag.names).substr(0, 2)) > 0) args->refused = &flag;
    }
    args->transport.noteGiven(*cmd);
    return runBenchCommand(*args);
  };
}

}  // namespace ringlab::cli
