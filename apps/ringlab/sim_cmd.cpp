// `ringlab sim`: AllReduce simulated on a topology and placement, printed in `ringlab bench`'s
// table shape (nccl-tests' columns) so that a simulated and a measured run compare line by line.
#include <cstdio>

#include <fmt/format.h>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "option_groups.hpp"
#include "progress_line.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/gpu/system_topology.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/record/sim_record.hpp"
#include "ringlab/report/pictures.hpp"
#include "ringlab/report/sim_text.hpp"
#include "ringlab/usecase/sim_run.hpp"

namespace ringlab::cli {
namespace {

struct SimArgs {
  TopologyOptions where;
  GpuSystemOptions system;  // in place of where: a GPU system, on NCCL's rings
  AlgorithmOptions algorithm;
  const CLI::Option *algoOption = nullptr, *channelsOption = nullptr;  // given, or defaults
  SweepOptions sweep;
  // The reduction's cost: --gamma, --reduce-bw (its rate), or the --profile's gamma; none:
  // reduction costs nothing. The topology prices the links, so a profile's alpha and beta are
  // not used.
  std::string gamma, reduceBandwidth, profile;
  std::string maxMemory = "4G";
  bool search = false, criticalPath = false;
  int links = 0;
  JsonOutput json;
  std::string svg;
};

// On a GPU system, unless --algo says otherwise: multi_ring on the rings NCCL builds there, as many
// as NCCL's channels (or --channels).
std::function<schedule::AlgorithmSpec(int)> algorithmFor(const SimArgs& args,
                                                         const std::optional<gpu::GpuSystem>& s) {
  if (!s || args.algoOption->count() > 0) {
    return [&args](int p) { return args.algorithm.resolve(p); };
  }
  const schedule::AlgorithmSpec spec =
      gpu::ncclMultiRing(*s, args.channelsOption->count() > 0 ? args.algorithm.channels : 0);
  return [spec](int) { return spec; };
}

// The reduction cost as given: --gamma, --reduce-bw or the profile's gamma; none for free.
struct ReductionCost {
  std::optional<double> gammaSPerByte;
  std::string given;
};
ReductionCost reductionCost(const SimArgs& args) {
  for (const std::string& given : {args.gamma, args.reduceBandwidth}) {
    if (!given.empty()) return {parseSecondsPerByte(given), given};  // a rate or a cost
  }
  if (args.profile.empty()) return {};
  const model::Profile profile = readProfile(args.profile);
  warnIfUnstable(profile, args.profile);
  const double gamma = profile.params.reduce.gamma_s_per_byte;
  return {gamma, fmt::format("{}ns/B", gamma * 1e9)};
}

int runSim(const SimArgs& args) {
  TopologyOptions where = args.where;
  const std::optional<gpu::GpuSystem> system = drawSystem(args.system, where);
  std::vector<std::uint64_t> sizes = args.sweep.sizes();  // refused before anything else is read
  const ReductionCost reduction = reductionCost(args);
  const usecase::SimRequest request{.where = where,
                                    .algorithm = algorithmFor(args, system),
                                    .sizes = std::move(sizes),
                                    .maxBytes = args.sweep.max(),
                                    .type = args.sweep.type(),
                                    .op = args.sweep.reduceOp(),
                                    .gammaSPerByte = reduction.gammaSPerByte,
                                    .reductionGiven = reduction.given,
                                    .maxMemoryBytes = parseSize(args.maxMemory),
                                    .maxMemoryWhat = "--max-memory",
                                    .search = args.search};
  ProgressLine line("sim");
  if (!args.svg.empty()) io::writeTextFile(args.svg, "", "--svg");  // refused before simulating
  const auto print = [&](const std::string& text) {
    if (!args.json.toStdout()) line.print(text);
  };
  record::RunInfo info;  // the rows' header, once the run is described
  const auto onStart = [&](const record::SimRun& run) {
    args.json.checkWritable();
    info = run.info;
    if (system) {
      print("# system: " + gpu::describeSystem(*system) + "\n# " + gpu::topologyNote(*system) +
            (args.algoOption->count() > 0 ? "" : "; rings: NCCL's, one per channel") +
            "\n# what NCCL's tuner would choose and reach here: ringlab model --system\n");
    }
    print(report::simPreamble(run));
  };
  const usecase::SimOutcome out = usecase::simulateRun(
      request, onStart, [&](const sim::SimRow& row) { print(report::simTableRow(row, info)); },
      line.callback());
  line.finish();
  const topo::Topology& topology = *out.placed.topology;
  if (args.criticalPath) print(report::simCriticalPath(out.last, topology));
  if (args.links > 0) print(report::simBusiestLinks(out.last, topology, args.links));
  if (args.json.given()) args.json.write(record::simRecordJson(out.run, out.rows).dump(2) + "\n");
  if (!args.svg.empty()) {
    const std::string title = "ringlab sim: allreduce on " + out.run.topology;
    io::writeTextFile(
        args.svg, report::chartSvg(report::simChart({{out.run.info, out.rows}}, title)), "--svg");
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
  args->system.add(*cmd, false);
  args->algorithm.add(*cmd);
  args->algoOption = cmd->get_option("--algo");
  args->channelsOption = cmd->get_option("--channels");
  args->sweep.add(*cmd);
  // The links' alpha and beta are the topology's: a model's parameters price only the reduction.
  addProfile(*cmd, args->profile,
             "model parameters from `ringlab calibrate`: sim takes its gamma (reduction) only; "
             "the topology prices the links");
  auto* gammaOption = addPerByteCost(*cmd, "--gamma", args->gamma,
                                     "reduction cost per byte on a rank (0, 0.05ns/B) or its rate "
                                     "(20GB/s); overrides the profile");
  addBandwidth(*cmd, "--reduce-bw", args->reduceBandwidth,
               "reduction throughput on a rank, e.g. 10GB/s: --gamma as a rate")
      ->excludes(gammaOption);
  cmd->add_option("--max-memory", args->maxMemory, "refuse schedules estimated larger than this");
  cmd->add_flag("--search", args->search, "simulate the ring order(s) `ringlab topo search` finds");
  cmd->add_flag("--critical-path", args->criticalPath,
                "print the critical path of the largest size");
  addLinks(*cmd, args->links, "print the N busiest links of the largest size");
  args->json.add(*cmd, "also write the results as JSON to this file");
  addSvg(*cmd, args->svg, "also draw the simulated busbw against size (SVG)");
  return [args] { return runSim(*args); };
}

}  // namespace ringlab::cli
