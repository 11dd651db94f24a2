// `ringlab compare`: measurements (ringlab bench --json, nccl-tests logs and -J JSON, OSU
// osu_allreduce output) against the model, one table per run and case, optionally a log-log SVG.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "option_groups.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/record/comparison.hpp"
#include "ringlab/record/gpu_comparison.hpp"
#include "ringlab/record/run_logs.hpp"
#include "ringlab/report/comparison.hpp"
#include "ringlab/report/gpu_text.hpp"

namespace ringlab::cli {
namespace {

struct CompareArgs {
  std::vector<std::string> files;
  std::string algo;  // empty: as recorded in the file, ring for nccl-tests logs
  std::string svg;
  std::optional<int> ranks;  // none: as the logs say
  ModelOptions model;
  GpuSystemOptions system;
  JsonOutput json;
};

// The GPU verdict's rows as the comparison plot draws them (one out-of-place curve each).
record::Comparison plotted(const record::GpuComparison& g) {
  record::Comparison c{.label = g.label, .source = g.source};
  for (const gpu::VerdictRow& r : g.verdict.rows) {
    c.rows.push_back({r.bytes, r.predictedUs(), r.measuredUs, r.predictedUs(), std::nullopt});
  }
  return c;
}

const char* const kHowToGiveSystem =
    "give --system PRESET (ringlab compare --system list), --system with the GPUs, nodes and "
    "NICs (gpu=h100,gpus=8,nodes=2,nics=8,nic=400Gb/s), or --nccl-topo FILE";

int runCompareCommand(const CompareArgs& a) {
  if (a.system.listing()) {
    std::fputs(report::gpuPresetsText().c_str(), stdout);
    return 0;
  }
  const bool gpuSystem = a.system.given();
  a.json.checkWritable();
  const std::optional<gpu::GpuSystem> system =
      gpuSystem ? std::optional<gpu::GpuSystem>(a.system.load()) : std::nullopt;
  const record::LogOptions options{a.ranks};
  std::vector<record::Comparison> comparisons;
  nlohmann::json out = nlohmann::json::array();  // --json: each run's verdict or comparison
  std::string text;
  // The CPU model, checked before any file is read (a bad --profile is refused whatever the logs).
  std::optional<io::ResolvedModel> model;
  if (!system) model = a.model.resolve();
  // A GPU log is priced with the alpha-beta model only where its parameters were given; the
  // stated defaults describe CPU ranks, and would give a column of meaningless ratios.
  const bool modelGiven = !a.model.profile.empty() || a.model.source().overridden();
  bool preamble = false;
  for (const std::string& file : a.files) {
    for (const record::LoggedRun& run : record::readRuns(file, "measurements", options)) {
      if (system) {
        const record::GpuComparison verdict =
            record::compareGpu(run, *system, "measurements " + file);
        out.push_back(record::toJson(verdict));
        text += report::gpuComparisonText(verdict);
        comparisons.push_back(plotted(verdict));
      } else if (record::isGpuRun(run) && !modelGiven) {
        text += "# measurements " + file + (run.name.empty() ? "" : " (" + run.name + ")") + ": " +
                record::noSystemSentence(run, kHowToGiveSystem) + "\n";
        for (const std::string& note : run.notes) text += "# log: " + note + "\n";
      } else {
        if (!preamble) {
          text += report::comparisonPreamble(model->source, model->profile);
          preamble = true;
        }
        const record::ModelSetup setup =
            record::modelSetup(*model, a.model.source(), ModelOptions::labels());
        comparisons.push_back(record::compare(run, record::comparedAlgorithm(run.record, a.algo),
                                              model->profile, setup, "measurements " + file));
        text += report::comparisonTable(comparisons.back());
        out.push_back(report::comparisonJson(comparisons.back(), model->source));
      }
    }
  }
  std::string svg;
  if (!a.svg.empty()) {
    if (comparisons.empty())
      throwInvalid("--svg " + a.svg + ": no run to draw (GPU logs need --system)");
    try {
      svg =
          report::comparisonSvg(comparisons, "AllReduce: measured (solid) and predicted (dashed)");
    } catch (const Error& e) {
      throwInvalid("--svg " + a.svg + ": " + e.what());
    }
  }
  if (a.json.given() && out.empty())
    throwInvalid("--json " + a.json.path + ": no run was compared (GPU logs need --system)");
  a.json.printText(text);
  if (a.json.given()) a.json.write(out.dump(2) + "\n");
  if (!a.svg.empty()) {
    io::writeTextFile(a.svg, svg, "--svg");
    if (!a.json.toStdout()) std::printf("# plot written to %s\n", a.svg.c_str());
  }
  return 0;
}

}  // namespace

Action addCompareCommand(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "compare bench JSON files, nccl-tests logs or OSU osu_allreduce output with the model");
  cmd->add_option("files", args->files,
                  "ringlab bench --json files, nccl-tests all_reduce_perf logs (text or -J JSON), "
                  "OSU osu_allreduce output")
      ->type_name("FILE");
  cmd->add_option("--algo", args->algo,
                  "algorithm to predict (default: the file's; ring for nccl-tests)");
  addRanks(*cmd, args->ranks,
           "number of ranks, for logs that do not list them (OSU output, pastes without the "
           "'#  Rank' lines)");
  addSvg(*cmd, args->svg, "also draw measured and predicted time against size (log-log)");
  args->model.add(*cmd);
  args->system.add(*cmd, true);
  args->json.add(*cmd,
                 "also write each run's comparison (with --system or --nccl-topo: the GPU "
                 "verdict) as JSON to this file");
  return [args] {
    if (args->files.empty() && !args->system.listing())
      throwInvalid("compare: give one or more files");
    return runCompareCommand(*args);
  };
}

}  // namespace ringlab::cli
