// `ringlab sim`: AllReduce simulated on a topology and placement, printed in `ringlab bench`'s
// table shape (nccl-tests' columns) so that a simulated and a measured run compare line by line.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "option_groups.hpp"
#include "progress_line.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/measure/sim_record.hpp"
#include "ringlab/report/pictures.hpp"
#include "ringlab/report/sim_text.hpp"
#include "ringlab/sim/allreduce_sim.hpp"

namespace ringlab::cli {
namespace {

struct SimArgs {
  TopologyOptions where;
  AlgorithmOptions algorithm;
  SweepOptions sweep;
  std::string reduceBandwidth;  // empty: reduction costs nothing
  std::string maxMemory = "4G";
  bool search = false, criticalPath = false;
  int links = 0;
  JsonOutput json;
  std::string svg;
};

int runSim(const SimArgs& args) {
  args.sweep.factor();  // refused before anything else is read
  const PlacedTopology placed = args.where.load();
  const int p = placed.placement->ranks();
  const DataType type = args.sweep.type();
  const ReduceOp op = args.sweep.reduceOp();
  measure::SimRun run;
  run.topology = placed.topologyText();
  run.placement = placed.placementText();
  run.reduceBandwidth = args.reduceBandwidth;
  if (!args.reduceBandwidth.empty()) run.gammaSPerByte = 1.0 / parseBandwidth(args.reduceBandwidth);
  schedule::AlgorithmSpec spec = args.algorithm.resolve(p);
  ProgressLine line("sim");
  if (args.search) {
    spec = sim::withSearchedRings(spec, *placed.topology, *placed.placement,
                                  static_cast<double>(args.sweep.max()), run.searchMethod,
                                  line.callback());
  }
  const sim::AllReduceSim allReduce(spec, p, parseSize(args.maxMemory),
                                    "--max-memory " + args.maxMemory);
  args.json.checkWritable();
  if (!args.svg.empty()) io::writeTextFile(args.svg, "", "--svg");  // refused before simulating
  const auto print = [&](const std::string& text) {
    if (!args.json.toStdout()) line.print(text);
  };
  run.info = measure::simRunInfo(spec, run.topology, run.placement, p, type, op);
  print(report::simPreamble(run));
  sim::SimResult last;
  const std::vector<sim::SimRow> rows = sim::simulateSizes(
      *placed.topology, *placed.placement, allReduce, args.sweep.sizes(), type,
      sim::SimParams{.gamma_s_per_byte = run.gammaSPerByte}, last,
      [&](const sim::SimRow& row) { print(report::simTableRow(row, run.info)); }, line.callback());
  line.finish();
  if (args.criticalPath) print(report::simCriticalPath(last, *placed.topology));
  if (args.links > 0) print(report::simBusiestLinks(last, *placed.topology, args.links));
  if (args.json.given()) args.json.write(measure::simRecordJson(run, rows).dump(2) + "\n");
  if (!args.svg.empty()) {
    const std::string title = "ringlab sim: allreduce on " + run.topology;
    io::writeTextFile(args.svg, report::chartSvg(report::simChart({{run.info, rows}}, title)),
                      "--svg");
    print("# busbw plot written to " + args.svg + "\n");
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
  args->sweep.add(*cmd);
  addBandwidth(*cmd, "--reduce-bw", args->reduceBandwidth,
               "reduction throughput on a rank, e.g. 10GB/s (gamma = 1/it)");
  cmd->add_option("--max-memory", args->maxMemory, "refuse schedules estimated larger than this");
  cmd->add_flag("--search", args->search, "simulate the ring order(s) `ringlab topo search` finds");
  cmd->add_flag("--critical-path", args->criticalPath,
                "print the critical path of the largest size");
  cmd->add_option("--links", args->links, "print the N busiest links of the largest size");
  args->json.add(*cmd, "also write the results as JSON to this file");
  addSvg(*cmd, args->svg, "also draw the simulated busbw against size (SVG)");
  return [args] { return runSim(*args); };
}

}  // namespace ringlab::cli
