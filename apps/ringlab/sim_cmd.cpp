// `ringlab sim`: AllReduce simulated on a topology and placement, printed in `ringlab bench`'s
// table shape (nccl-tests' columns) so that a simulated and a measured run compare line by line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common_options.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/reduce_op.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/measure/record.hpp"
#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/schedule/multi_ring.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/sim/workload.hpp"
#include "ringlab/topo/ring_search.hpp"
#include "topo_options.hpp"

namespace ringlab::cli {
namespace {

struct SimArgs {
  TopologyOptions where;
  AlgorithmOptions algorithm;
  std::string minBytes = "8", maxBytes = "64M", dtype = "float32", op = "sum";
  long long stepFactor = 2;
  std::string reduceBandwidth;  // empty: reduction costs nothing
  std::string maxMemory = "4G";
  bool search = false;
  bool criticalPath = false;
  int links = 0;
  std::string json;
};

double busFactor(int p) {
  return p > 1 ? 2.0 * (p - 1) / p : 0.0;
}

// Ring and multi_ring run from their orders without a Schedule; others need the Schedule, whose
// size (transfers) is estimated from the algorithm's steps.
std::uint64_t scheduleTransfers(const schedule::AlgorithmSpec& spec, int p) {
  const std::uint64_t n = static_cast<std::uint64_t>(p);
  std::uint64_t lg = 1;
  while ((std::uint64_t{1} << lg) < n) ++lg;
  if (spec.name == "ring" || spec.name == "multi_ring")
    return n * 2 * (n - 1) * std::max(1, spec.channels);
  if (spec.name == "hierarchical") return n * 2 * n;
  return n * (2 * lg + 2);
}

std::vector<schedule::RingOrder> ringsOf(const schedule::AlgorithmSpec& spec, int p) {
  if (spec.name == "ring") {
    return {spec.ringOrder.empty() ? schedule::RingOrder::identity(p)
                                   : schedule::RingOrder::fromList(spec.ringOrder, p)};
  }
  return schedule::multiRingOrders(p, spec.channels, spec.channelOrders, spec.ringOrder);
}

std::string shortened(std::string text) {
  return text.size() > 120 ? text.substr(0, 117) + "..." : text;
}

int runSim(SimArgs args) {
  if (args.stepFactor < 2)
    throwInvalid("-f/--stepfactor " + std::to_string(args.stepFactor) + ": must be >= 2");
  const PlacedTopology placed = args.where.load();
  const int p = placed.placement->ranks();
  const DataType type = parseDataType(args.dtype);
  const ReduceOp op = parseReduceOp(args.op);
  sim::SimParams params;
  if (!args.reduceBandwidth.empty())
    params.gamma_s_per_byte = 1.0 / parseBandwidth(args.reduceBandwidth);
  schedule::AlgorithmSpec spec = args.algorithm.resolve(p);
  std::string searchNote;
  if (args.search) {
    if (spec.name != "ring" && spec.name != "multi_ring")
      throwInvalid("--search finds ring orders: use --algo ring or multi_ring");
    topo::RingSearchOptions options;
    options.channels = spec.name == "ring" ? 1 : spec.channels;
    options.bytes = static_cast<double>(parseSize(args.maxBytes));
    const topo::RingSearchResult found =
        topo::searchRings(*placed.topology, *placed.placement, options);
    spec.ringOrder.clear();
    spec.channelOrders.clear();
    if (spec.name == "ring") {
      spec.ringOrder = found.rings.front().ranks();
    } else {
      for (const auto& r : found.rings) spec.channelOrders.push_back(r.ranks());
    }
    searchNote = "searched (" + found.method + ")";
  }
  const bool ringFamily = spec.name == "ring" || spec.name == "multi_ring";
  const std::uint64_t limit = parseSize(args.maxMemory);
  const std::uint64_t scheduleBytes = sim::scheduleBytesEstimate(scheduleTransfers(spec, p));
  // Small rings run from their real Schedule (exact block sizes); large ones from the ring orders.
  constexpr std::uint64_t kMaterialiseBytes = 256ull << 20;
  const bool fromOrders = ringFamily && scheduleBytes > kMaterialiseBytes;
  if (!fromOrders && scheduleBytes > limit) {
    throwInvalid(fmt::format(
        "simulating {} at p = {} needs its schedule in memory: about {:.1f} GiB ({} transfers), "
        "over --max-memory {}; use ring or multi_ring (simulated from their orders) or fewer ranks",
        spec.name, p, scheduleBytes / double(1ull << 30), scheduleTransfers(spec, p),
        args.maxMemory));
  }
  std::unique_ptr<schedule::Schedule> schedule;
  if (!fromOrders) {
    schedule = std::make_unique<schedule::Schedule>(
        schedule::buildSchedule(schedule::Collective::AllReduce, p, spec));
  }
  const std::vector<schedule::RingOrder> rings =
      fromOrders ? ringsOf(spec, p) : std::vector<schedule::RingOrder>{};

  std::ofstream jsonOut;
  if (!args.json.empty()) {
    jsonOut.open(args.json);
    if (!jsonOut) throwInvalid("--json " + args.json + ": cannot open for writing");
  }
  measure::RunInfo info = measure::currentRunInfo();
  info.transport = "simulated";
  info.algorithm = spec.name;
  info.ringOrder = ringFamily ? shortened(ringOrderText(spec, p)) : ringOrderText(spec, p);
  info.topology = placed.topologyText() + "; placement " + placed.placementText();
  info.ranks = p;
  info.dtype = dataTypeName(type);
  info.op = reduceOpName(op);

  std::printf("# ringlab sim: allreduce  algorithm %s  transport simulated  p %d\n",
              info.algorithm.c_str(), p);
  std::printf("# version %s  host %s  date %s\n", info.version.c_str(), info.host.c_str(),
              info.date.c_str());
  std::printf("# ring order %s%s\n", info.ringOrder.c_str(),
              searchNote.empty() ? "" : ("  " + searchNote).c_str());
  std::printf("# topology: %s\n# placement: %s\n", placed.topologyText().c_str(),
              placed.placementText().c_str());
  std::printf("# reduction: %s\n",
              params.gamma_s_per_byte > 0
                  ? ("gamma " + fmt::format("{:.3g}", params.gamma_s_per_byte) + " s/B (" +
                     args.reduceBandwidth + ") on the receiving rank")
                        .c_str()
                  : "free (give --reduce-bw to price it)");
  std::printf(
      "# time: simulated completion of the slowest rank (links max-min shared, no global step "
      "barrier); "
      "in-place equals out-of-place.  algbw = size / time.  busbw = algbw x 2(p-1)/p (nccl-tests' "
      "allreduce "
      "convention).  GB/s = 1e9 B/s\n");
  std::printf("# %58s %32s\n", "out-of-place", "in-place");
  std::printf("# %12s %12s %8s %6s %9s %7s %7s %6s %9s %7s %7s %6s\n", "size", "count", "type",
              "redop", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  std::printf("# %12s %12s %8s %6s %9s %7s %7s %6s %9s %7s %7s\n", "(B)", "(elements)", "", "",
              "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)");
  nlohmann::json rows = nlohmann::json::array();
  sim::SimResult last;
  for (std::uint64_t bytes : geometricSizes(parseSize(args.minBytes), parseSize(args.maxBytes),
                                            static_cast<std::uint64_t>(args.stepFactor))) {
    const std::uint64_t count = elementCount(bytes, type, "-b/-e");
    const sim::Workload w = fromOrders ? sim::ringAllReduceWorkload(rings, count, type)
                                       : sim::workloadFromSchedule(*schedule, count, type);
    last = sim::simulate(*placed.topology, *placed.placement, w, params);
    const double us = last.time_s * 1e6;
    const double algbw = us > 0 ? bytes / (us * 1e3) : 0.0;
    const std::string cols =
        fmt::format("{:9.1f} {:7.2f} {:7.2f} {:>6}", us, algbw, algbw * busFactor(p), "N/A");
    std::printf("  %12llu %12llu %8s %6s %s %s\n", static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(count), info.dtype.c_str(), info.op.c_str(),
                cols.c_str(), cols.c_str());
    std::fflush(stdout);
    rows.push_back({{"size_bytes", bytes},
                    {"count", count},
                    {"time_us", us},
                    {"algbw_GBps", algbw},
                    {"busbw_GBps", algbw * busFactor(p)},
                    {"simulated_steps", last.simulatedSteps}});
  }
  if (args.criticalPath) {
    // The path's ends: where it starts, and the last steps that decide the finish.
    constexpr std::size_t kHead = 4, kTail = 16;
    const auto& path = last.criticalPath;
    std::printf(
        "# critical path of the largest size (step, transfer, start -> end, lowest-rate link), %zu "
        "entries:\n",
        path.size());
    for (std::size_t i = 0; i < path.size(); ++i) {
      if (i == kHead && path.size() > kHead + kTail) {
        std::printf("#   ... %zu entries ...\n", path.size() - kHead - kTail);
        i = path.size() - kTail;
      }
      const sim::CriticalStep& c = path[i];
      if (c.src < 0) {
        std::printf("#   steps %llu..%llu repeat as a time shift  %.1f -> %.1f us\n",
                    static_cast<unsigned long long>(c.firstStep),
                    static_cast<unsigned long long>(c.firstStep + c.steps - 1), c.start_s * 1e6,
                    c.end_s * 1e6);
      } else {
        std::printf(
            "#   step %llu  %d -> %d  %.1f -> %.1f us  %s\n",
            static_cast<unsigned long long>(c.firstStep), c.src, c.dst, c.start_s * 1e6,
            c.end_s * 1e6,
            c.bottleneckLink >= 0 ? placed.topology->linkName(c.bottleneckLink).c_str() : "-");
      }
    }
  }
  if (args.links > 0) {
    std::vector<int> order(last.linkUtilisation.size());
    for (std::size_t l = 0; l < order.size(); ++l) order[l] = static_cast<int>(l);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return last.linkUtilisation[a] > last.linkUtilisation[b];
    });
    std::printf("# busiest links at the largest size: utilisation = bytes / (bandwidth x time)\n");
    for (int i = 0; i < args.links && i < static_cast<int>(order.size()); ++i) {
      std::printf("#   %-32s %6.1f%%  %.0f B\n", placed.topology->linkName(order[i]).c_str(),
                  100 * last.linkUtilisation[order[i]], last.linkBytes[order[i]]);
    }
  }
  if (jsonOut.is_open()) {
    nlohmann::json doc = {{"run", toJson(info)},
                          {"placement", placed.placementText()},
                          {"conventions",
                           {{"time", "simulated completion of the slowest rank, microseconds"},
                            {"algbw", "size / time, GB/s = 1e9 B/s"},
                            {"busbw", "algbw x 2(p-1)/p (nccl-tests allreduce)"}}},
                          {"gamma_s_per_byte", params.gamma_s_per_byte},
                          {"rows", rows}};
    jsonOut << doc.dump(2) << "\n";
  }
  return 0;
}

}  // namespace

Action addSimCommand(CLI::App& app) {
  auto args = std::make_shared<SimArgs>();
  CLI::App* cmd =
      app.add_subcommand("sim", "simulate AllReduce on a topology (same table as ringlab bench)");
  args->where.add(*cmd);
  args->algorithm.add(*cmd);
  cmd->add_option("-b,--minbytes", args->minBytes, "smallest size")->capture_default_str();
  cmd->add_option("-e,--maxbytes", args->maxBytes, "largest size")->capture_default_str();
  cmd->add_option("-f,--stepfactor", args->stepFactor, "multiply the size by this each step")
      ->capture_default_str();
  cmd->add_option("-d,--datatype", args->dtype, "element type")->capture_default_str();
  cmd->add_option("-o,--op", args->op, "reduce op (recorded; the simulator prices every op alike)")
      ->capture_default_str();
  cmd->add_option("--reduce-bw", args->reduceBandwidth,
                  "reduction throughput on a rank, e.g. 10GB/s (gamma = 1/it)");
  cmd->add_option("--max-memory", args->maxMemory, "refuse schedules estimated larger than this")
      ->capture_default_str();
  cmd->add_flag("--search", args->search, "simulate the ring order(s) `ringlab topo search` finds");
  cmd->add_flag("--critical-path", args->criticalPath,
                "print the critical path of the largest size");
  cmd->add_option("--links", args->links, "print the N busiest links of the largest size");
  cmd->add_option("--json", args->json, "also write the results as JSON to this file");
  return [args] { return runSim(*args); };
}

}  // namespace ringlab::cli
