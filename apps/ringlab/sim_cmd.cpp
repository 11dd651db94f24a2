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
#include "ringlab/schedule/ring_shape.hpp"
#include "ringlab/sim/allreduce_sim.hpp"
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

std::string shortened(std::string text) {
  return text.size() > 120 ? text.substr(0, 117) + "..." : text;
}

void printHeader(const measure::RunInfo& info, const PlacedTopology& placed,
                 const sim::SimParams& params, const SimArgs& args, const std::string& searchNote) {
  std::printf("# ringlab sim: allreduce  algorithm %s  transport simulated  p %d\n",
              info.algorithm.c_str(), info.ranks);
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
}

void printRow(const sim::SimRow& row, const measure::RunInfo& info) {
  const std::string cols = fmt::format("{:9.1f} {:7.2f} {:7.2f} {:>6}", row.time_s * 1e6,
                                       row.algbw_GBps, row.busbw_GBps, "N/A");
  std::printf("  %12llu %12llu %8s %6s %s %s\n", static_cast<unsigned long long>(row.bytes),
              static_cast<unsigned long long>(row.count), info.dtype.c_str(), info.op.c_str(),
              cols.c_str(), cols.c_str());
  std::fflush(stdout);
}

// The path's ends: where it starts, and the last steps that decide the finish.
void printCriticalPath(const sim::SimResult& last, const topo::Topology& topology) {
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
      std::printf("#   step %llu  %d -> %d  %.1f -> %.1f us  %s\n",
                  static_cast<unsigned long long>(c.firstStep), c.src, c.dst, c.start_s * 1e6,
                  c.end_s * 1e6,
                  c.bottleneckLink >= 0 ? topology.linkName(c.bottleneckLink).c_str() : "-");
    }
  }
}

void printBusiestLinks(const sim::SimResult& last, const topo::Topology& topology, int links) {
  std::vector<int> order(last.linkUtilisation.size());
  for (std::size_t l = 0; l < order.size(); ++l) order[l] = static_cast<int>(l);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return last.linkUtilisation[a] > last.linkUtilisation[b]; });
  std::printf("# busiest links at the largest size: utilisation = bytes / (bandwidth x time)\n");
  for (int i = 0; i < links && i < static_cast<int>(order.size()); ++i) {
    std::printf("#   %-32s %6.1f%%  %.0f B\n", topology.linkName(order[i]).c_str(),
                100 * last.linkUtilisation[order[i]], last.linkBytes[order[i]]);
  }
}

nlohmann::json simJson(const measure::RunInfo& info, const PlacedTopology& placed,
                       const sim::SimParams& params, const std::vector<sim::SimRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const sim::SimRow& r : rows) {
    out.push_back({{"size_bytes", r.bytes},
                   {"count", r.count},
                   {"time_us", r.time_s * 1e6},
                   {"algbw_GBps", r.algbw_GBps},
                   {"busbw_GBps", r.busbw_GBps},
                   {"simulated_steps", r.simulatedSteps}});
  }
  return {{"run", toJson(info)},
          {"placement", placed.placementText()},
          {"conventions",
           {{"time", "simulated completion of the slowest rank, microseconds"},
            {"algbw", "size / time, GB/s = 1e9 B/s"},
            {"busbw", "algbw x 2(p-1)/p (nccl-tests allreduce)"}}},
          {"gamma_s_per_byte", params.gamma_s_per_byte},
          {"rows", out}};
}

measure::RunInfo simRunInfo(const schedule::AlgorithmSpec& spec, const PlacedTopology& placed,
                            int p, DataType type, ReduceOp op) {
  measure::RunInfo info = measure::currentRunInfo();
  info.transport = "simulated";
  info.algorithm = spec.name;
  const std::string orders = schedule::ringOrderText(spec, p);
  info.ringOrder = schedule::ringOrdersOf(spec, p).empty() ? orders : shortened(orders);
  info.topology = placed.topologyText() + "; placement " + placed.placementText();
  info.ranks = p;
  info.dtype = dataTypeName(type);
  info.op = reduceOpName(op);
  return info;
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
    std::string method;
    spec = sim::withSearchedRings(spec, *placed.topology, *placed.placement,
                                  static_cast<double>(parseSize(args.maxBytes)), method);
    searchNote = "searched (" + method + ")";
  }
  const sim::AllReduceSim allReduce(spec, p, parseSize(args.maxMemory),
                                    "--max-memory " + args.maxMemory);
  std::ofstream jsonOut;
  if (!args.json.empty()) {
    jsonOut.open(args.json);
    if (!jsonOut) throwInvalid("--json " + args.json + ": cannot open for writing");
  }
  const measure::RunInfo info = simRunInfo(spec, placed, p, type, op);
  printHeader(info, placed, params, args, searchNote);
  sim::SimResult last;
  const std::vector<sim::SimRow> rows =
      sim::simulateSizes(*placed.topology, *placed.placement, allReduce,
                         geometricSizes(parseSize(args.minBytes), parseSize(args.maxBytes),
                                        static_cast<std::uint64_t>(args.stepFactor)),
                         type, params, last, [&](const sim::SimRow& row) { printRow(row, info); });
  if (args.criticalPath) printCriticalPath(last, *placed.topology);
  if (args.links > 0) printBusiestLinks(last, *placed.topology, args.links);
  if (jsonOut.is_open()) jsonOut << simJson(info, placed, params, rows).dump(2) << "\n";
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
