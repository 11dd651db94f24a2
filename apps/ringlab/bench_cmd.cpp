// `ringlab bench`: nccl-tests' all_reduce_perf, in shape and in column meaning.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_run.hpp"
#include "commands.hpp"
#include "common_options.hpp"
#include "comparison.hpp"
#include "launcher.hpp"
#include "model_options.hpp"
#include "rank_world.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/transport/mpi.hpp"
#include "run_info.hpp"
#include "topo_options.hpp"

namespace ringlab::cli {
namespace {

struct BenchArgs {
  int ranks = 4;
  std::string minBytes = "8", maxBytes = "64M", segment = "256K";
  long long stepFactor = 2;  // signed, so that a negative value is reported, not wrapped
  std::string dtype = "float32", op = "sum", transport = "inproc", json;
  int iterations = 20, warmup = 2, check = 1;
  double secondsPerSize = 0;  // -T/--time
  bool peerMpi = false;
  bool ranksGiven = false;  // -p on the command line (processes take p from their launcher)
  double timeoutSeconds = 60;
  std::string modelProfile;  // --model: add predicted time and measured/predicted
  std::string tuned;         // --tuned: decision table that --algo auto prefers to the model
  AlgorithmOptions algorithm;
  // --topo / --topo-file / --placement: the machine the ranks run on, named in the record.
  TopologyOptions topology;
};

double busFactor(int p) {
  return p > 1 ? 2.0 * (p - 1) / p : 0.0;
}

std::string resultColumns(std::uint64_t bytes, const BenchResult& r, int p, bool check) {
  const double algbw = r.timeUs > 0 ? bytes / (r.timeUs * 1e3) : 0.0;
  return fmt::format("{:9.1f} {:7.2f} {:7.2f} {:>6}", r.timeUs, algbw, algbw * busFactor(p),
                     check ? std::to_string(r.wrong) : std::string("N/A"));
}

nlohmann::json resultJson(std::uint64_t bytes, const BenchResult& r, int p, bool check) {
  const double algbw = r.timeUs > 0 ? bytes / (r.timeUs * 1e3) : 0.0;
  nlohmann::json j = {{"time_us", r.timeUs},
                      {"algbw_GBps", algbw},
                      {"busbw_GBps", algbw * busFactor(p)},
                      {"iterations", r.iterations}};
  j["wrong"] = check ? nlohmann::json(r.wrong) : nlohmann::json(nullptr);
  return j;
}

// Where a rank process takes p from its launcher or from MPI, a -p that says otherwise is an error.
int ranksOfProcessWorld(const BenchArgs& args, int worldSize) {
  if (args.ranksGiven && args.ranks != worldSize) {
    throwInvalid("-p " + std::to_string(args.ranks) + " but this job has " +
                 std::to_string(worldSize) + " ranks (from " +
                 (args.transport == "mpi" ? "mpirun" : "RINGLAB_WORLD_SIZE") + ")");
  }
  return worldSize;
}

int runBenchCommand(BenchArgs args) {
  checkRanks(args.ranks);
  if (args.transport != "inproc" && !isProcessTransport(args.transport)) {
    throwInvalid("--transport " + args.transport + ": valid are inproc, shm, tcp, mpi");
  }
  if (args.peerMpi && args.transport != "mpi") {
    throwInvalid(
        "--peer-mpi times MPI_Allreduce beside ringlab under mpirun: it needs --transport mpi");
  }
  if (args.stepFactor < 2)
    throwInvalid("-f/--stepfactor " + std::to_string(args.stepFactor) + ": must be >= 2");
  // At least a millisecond, at most a day: NaN, infinities and overflowing values are refused.
  if (!(args.timeoutSeconds >= 0.001 && args.timeoutSeconds <= 86400)) {
    throwInvalid("--timeout " + fmt::format("{}", args.timeoutSeconds) +
                 ": must be between 0.001 and 86400 seconds");
  }
  if (args.check != 0 && args.check != 1)
    throwInvalid("-c/--check " + std::to_string(args.check) + ": must be 0 or 1");
  const auto timeout = std::chrono::milliseconds(std::llround(args.timeoutSeconds * 1000));
  // A rank process takes p from its launcher or MPI, before anything (a ring order, a tuned
  // table) is checked against p. Without the rank environment, shm and tcp start their ranks.
  const bool startRanks = isLaunchable(args.transport) && !bootstrap::rankEnvironmentFromEnv();
  RankWorld world;
  if (isProcessTransport(args.transport) && !startRanks) {
    world = connectRankWorld(args.transport, timeout);
    args.ranks = ranksOfProcessWorld(args, world.transport->size());
  }
  BenchConfig config;
  config.ranks = args.ranks;
  config.type = parseDataType(args.dtype);
  config.op = parseReduceOp(args.op);
  config.minBytes = parseSize(args.minBytes);
  config.maxBytes = parseSize(args.maxBytes);
  config.stepFactor = static_cast<std::uint64_t>(args.stepFactor);
  config.iterations = args.iterations;
  config.secondsPerSize = args.secondsPerSize;
  config.warmup = args.warmup;
  config.check = args.check == 1;
  config.collective.algorithm = args.algorithm.resolve(args.ranks);
  config.collective.exec.segmentBytes = parseSize(args.segment);
  config.collective.exec.timeout = timeout;
  std::optional<model::Profile> profile;
  if (!args.modelProfile.empty()) {
    profile = readProfile(args.modelProfile);
    config.collective.autoModel = profile->params;  // --algo auto chooses with the same model
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
  // Fail on a bad algorithm or an unwritable --json before printing anything or measuring.
  validate(config);
  if (startRanks) return launch({args.ranks, selfCommand(), timeout + std::chrono::seconds(5)});
  std::unique_ptr<Communicator> processComm;
  if (world.transport) {
    processComm = std::make_unique<Communicator>(*world.transport);
    if (args.peerMpi) config.peer = transport::mpiAllreduce;
    if (world.transport->rank() != 0) {
      // One rank speaks for the job; the others only report errors, on stderr.
      if (!std::freopen("/dev/null", "w", stdout))
        throw Error(ErrorCode::Internal, "cannot silence stdout");
      args.json.clear();
    }
  }
  std::ofstream jsonOut;
  if (!args.json.empty()) {
    jsonOut.open(args.json);
    if (!jsonOut) throwInvalid("--json " + args.json + ": cannot open for writing");
  }

  RunInfo info = currentRunInfo();
  info.transport = args.transport;
  info.algorithm = config.collective.algorithm.name;
  info.ringOrder = ringOrderText(config.collective.algorithm, args.ranks);
  if (!args.topology.spec.empty() || !args.topology.file.empty() ||
      !args.topology.ncclFile.empty()) {
    // The user names the machine; it must hold p ranks with the stated placement.
    TopologyOptions topology = args.topology;
    topology.ranks = args.ranks;
    const PlacedTopology placed = topology.load();
    info.topology = placed.topologyText();
    info.placement = placed.placementText();
  } else {
    info.topology = args.transport == "mpi" ? "as mpirun placed the ranks" : "single host";
    info.placement = args.transport == "inproc" ? "ranks as threads of one process"
                     : args.transport == "mpi"  ? "ranks as MPI processes (mpirun)"
                                                : "one process per rank";
  }
  info.ranks = args.ranks;
  info.dtype = dataTypeName(config.type);
  info.op = reduceOpName(config.op);

  std::printf("# ringlab bench: allreduce  algorithm %s  transport %s  p %d\n",
              info.algorithm.c_str(), info.transport.c_str(), info.ranks);
  std::printf("# version %s  host %s  date %s  kernels %s\n", info.version.c_str(),
              info.host.c_str(), info.date.c_str(), reduceKernelIsa());
  const std::string iterationText = config.secondsPerSize > 0
                                        ? fmt::format("iters ~{}s per size", config.secondsPerSize)
                                        : fmt::format("iters {}", config.iterations);
  std::printf("# ring order %s  topology: %s  placement: %s  segment %s  %s  warmup %d  check %s\n",
              info.ringOrder.c_str(), info.topology.c_str(), info.placement.c_str(),
              formatSize(config.collective.exec.segmentBytes).c_str(), iterationText.c_str(),
              config.warmup, config.check ? "on" : "off");
  if (config.peer)
    std::printf("# peer: MPI_Allreduce of %s, out of place, same buffers\n",
                transport::mpiLibraryVersion().c_str());
  std::printf(
      "# time: median over iterations of the slowest rank's time.  algbw = size / time.  "
      "busbw = algbw x 2(p-1)/p (nccl-tests' allreduce convention: per-rank send volume / time).  "
      "GB/s = 1e9 B/s\n");
  const bool automatic = config.collective.algorithm.name == model::kAutoAlgorithm;
  if (automatic) {
    const std::string basis = !args.tuned.empty() ? "the measured decision table " + args.tuned
                              : profile           ? "the model with profile " + args.modelProfile
                                                  : "the model with its stated default parameters";
    std::printf("# auto: each size runs the algorithm chosen by %s, shown in the last column\n",
                basis.c_str());
  }
  if (profile) {
    std::printf(
        "# model: profile %s (transport %s, host %s): %s; model(us) is the prediction for this "
        "algorithm\n",
        args.modelProfile.c_str(), profile->transport.c_str(), profile->host.c_str(),
        describeModel(*profile).c_str());
  }
  const std::string modelHead = std::string(config.peer ? "   mpi(us) mpi_busbw #wrong" : "") +
                                (profile ? "  model(us) oop/model ip/model" : "") +
                                (automatic ? "  algorithm" : "");
  // Column headers as nccl-tests prints them, without trailing blanks.
  const auto printHeaderLine = [](std::string line) {
    line.erase(line.find_last_not_of(' ') + 1);
    std::printf("%s\n", line.c_str());
  };
  printHeaderLine(fmt::format("# {:>58} {:>32}", "out-of-place", "in-place"));
  printHeaderLine(
      fmt::format("# {:>12} {:>12} {:>8} {:>6} {:>9} {:>7} {:>7} {:>6} {:>9} {:>7} {:>7} {:>6}{}",
                  "size", "count", "type", "redop", "time", "algbw", "busbw", "#wrong", "time",
                  "algbw", "busbw", "#wrong", modelHead));
  printHeaderLine(fmt::format(
      "# {:>12} {:>12} {:>8} {:>6} {:>9} {:>7} {:>7} {:>6} {:>9} {:>7} {:>7}", "(B)", "(elements)",
      "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)"));
  std::fflush(stdout);

  const std::vector<std::uint64_t> sizes = sweepSizes(config);
  const bool progress = isatty(STDERR_FILENO) && sizes.size() > 4;
  std::size_t done = 0;
  std::uint64_t totalWrong = 0;
  nlohmann::json rows = nlohmann::json::array();
  const auto onRow = [&](const BenchRow& row) {
    if (progress) std::fprintf(stderr, "\r\033[K");
    // The spec that actually ran this size ("auto" resolved the way every rank resolved it).
    const schedule::AlgorithmSpec ranSpec = model::chooseAlgorithm(
        config.collective.algorithm, schedule::Collective::AllReduce, config.ranks, row.count,
        config.type, config.collective.autoModel, config.collective.autoTable.get());
    const std::string& ran = ranSpec.name;
    std::string modelColumns;
    nlohmann::json oop = resultJson(row.bytes, row.outOfPlace, config.ranks, config.check);
    nlohmann::json ip = resultJson(row.bytes, row.inPlace, config.ranks, config.check);
    nlohmann::json predicted = nullptr;
    if (profile) {
      const double us = predictedMicros(ranSpec, config.ranks, row.bytes, config.type, *profile);
      modelColumns = fmt::format(" {:10.1f} {:9.2f} {:8.2f}", us, row.outOfPlace.timeUs / us,
                                 row.inPlace.timeUs / us);
      predicted = us;
      oop["measured_over_predicted"] = row.outOfPlace.timeUs / us;
      ip["measured_over_predicted"] = row.inPlace.timeUs / us;
    }
    if (automatic) modelColumns += "  " + ran;
    nlohmann::json peer = nullptr;
    if (config.peer) {
      const double algbw = row.peer.timeUs > 0 ? row.bytes / (row.peer.timeUs * 1e3) : 0.0;
      modelColumns =
          fmt::format(" {:9.1f} {:9.2f} {:>6}", row.peer.timeUs, algbw * busFactor(config.ranks),
                      config.check ? std::to_string(row.peer.wrong) : std::string("N/A")) +
          modelColumns;
      peer = resultJson(row.bytes, row.peer, config.ranks, config.check);
      peer["library"] = transport::mpiLibraryVersion();
      totalWrong += row.peer.wrong;
    }
    std::printf("  %12llu %12llu %8s %6s %s %s%s\n", static_cast<unsigned long long>(row.bytes),
                static_cast<unsigned long long>(row.count), info.dtype.c_str(), info.op.c_str(),
                resultColumns(row.bytes, row.outOfPlace, config.ranks, config.check).c_str(),
                resultColumns(row.bytes, row.inPlace, config.ranks, config.check).c_str(),
                modelColumns.c_str());
    std::fflush(stdout);
    totalWrong += row.outOfPlace.wrong + row.inPlace.wrong;
    rows.push_back({{"size_bytes", row.bytes},
                    {"count", row.count},
                    {"algorithm", ran},
                    {"predicted_us", predicted},
                    {"out_of_place", oop},
                    {"in_place", ip},
                    {"peer_mpi", peer}});
    if (progress && ++done < sizes.size()) {
      std::fprintf(stderr, "[%zu/%zu] next: %s", done, sizes.size(),
                   formatSize(sizes[done]).c_str());
    }
  };
  if (processComm) {
    runBenchRank(config, *processComm, onRow);
  } else {
    runBenchThreads(config, onRow);
  }
  std::printf("# wrong elements in total: %llu\n", static_cast<unsigned long long>(totalWrong));
  if (!args.json.empty()) {
    nlohmann::json doc = {
        {"run", toJson(info)},
        {"conventions",
         {{"time", "median over iterations of the slowest rank's time, microseconds"},
          {"algbw", "size / time, GB/s = 1e9 B/s"},
          {"busbw", "algbw x 2(p-1)/p (nccl-tests allreduce)"}}},
        {"segment_bytes", config.collective.exec.segmentBytes},
        // -n, or null when -T sized each measurement (its count is in the result).
        {"iterations",
         config.secondsPerSize > 0 ? nlohmann::json(nullptr) : nlohmann::json(config.iterations)},
        {"seconds_per_size", config.secondsPerSize},
        {"warmup", config.warmup},
        {"rows", rows}};
    jsonOut << doc.dump(2) << "\n";
  }
  return totalWrong == 0 ? 0 : 1;
}

}  // namespace

Action addBenchCommand(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd =
      app.add_subcommand("bench", "measure AllReduce over a size sweep (nccl-tests style)");
  cmd->add_option("-p,--ranks", args->ranks, "number of ranks")->capture_default_str();
  cmd->add_option("-b,--minbytes", args->minBytes,
                  "smallest size (8, 4K, 64KiB, 1M, 2G: powers of 1024)")
      ->capture_default_str();
  cmd->add_option("-e,--maxbytes", args->maxBytes, "largest size")->capture_default_str();
  cmd->add_option("-f,--stepfactor", args->stepFactor, "multiply the size by this each step")
      ->capture_default_str();
  cmd->add_option(
         "-d,--datatype", args->dtype,
         "int8 uint8 int32 uint32 int64 uint64 float16|half bfloat16 float32|float float64|double")
      ->capture_default_str();
  cmd->add_option("-o,--op", args->op, "sum prod min max avg")->capture_default_str();
  cmd->add_option("-n,--iters", args->iterations, "timed iterations per size")
      ->capture_default_str();
  cmd->add_option("-w,--warmup_iters", args->warmup, "untimed iterations before timing")
      ->capture_default_str();
  cmd->add_option("-c,--check", args->check, "1: check every size against the closed-form result")
      ->capture_default_str();
  cmd->add_option("--transport", args->transport,
                  "inproc (ranks as threads), shm or tcp (ranks as processes on this host, "
                  "launched for you, "
                  "or started by `ringlab launch`/torchrun variables), mpi (under mpirun)")
      ->capture_default_str();
  cmd->add_option("--segment", args->segment, "pipeline segment size")->capture_default_str();
  cmd->add_option("--timeout", args->timeoutSeconds, "seconds to wait for any one message")
      ->capture_default_str();
  cmd->add_option("--json", args->json, "also write the results as JSON to this file");
  cmd->add_option("--tuned", args->tuned, "decision table from `ringlab tune` for --algo auto");
  cmd->add_option("--model", args->modelProfile,
                  "profile (ringlab calibrate): add predicted time and measured/predicted");
  args->algorithm.add(*cmd);
  args->topology.add(*cmd, false);
  cmd->add_option("-T,--time", args->secondsPerSize,
                  "iterate about this many seconds per size instead of -n (0: use -n)")
      ->capture_default_str();
  cmd->add_flag("--peer-mpi", args->peerMpi,
                "also time MPI_Allreduce on the same buffers (--transport mpi, under mpirun)");
  return [args, cmd] {
    args->ranksGiven = cmd->count("-p") > 0;
    return runBenchCommand(*args);
  };
}

}  // namespace ringlab::cli
