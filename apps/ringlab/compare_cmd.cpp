// `ringlab compare`: measurements (ringlab bench --json, nccl-tests all_reduce_perf logs) against
// the model, as a table and optionally a log-log SVG.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "comparison.hpp"
#include "model_options.hpp"
#include "ringlab/core/error.hpp"

namespace ringlab::cli {
namespace {

struct CompareArgs {
  std::vector<std::string> files;
  std::string algo;  // empty: as recorded in the file, ring for nccl-tests logs
  std::string svg;
  ModelOptions model;
};

int runCompareCommand(const CompareArgs& a) {
  std::vector<std::string> warnings;
  std::string source;
  const model::Profile profile = a.model.resolve(warnings, source);
  for (const auto& w : warnings) std::fprintf(stderr, "ringlab: %s\n", w.c_str());
  std::vector<Comparison> comparisons;
  for (const std::string& file : a.files) {
    const Measurements m = readMeasurements(file);
    schedule::AlgorithmSpec spec;
    spec.name = !a.algo.empty() ? a.algo : !m.algorithm.empty() ? m.algorithm : "ring";
    comparisons.push_back(compare(m, spec, profile));
  }
  std::printf("# ringlab compare: measured against the alpha-beta-gamma model [%s]\n",
              source.c_str());
  std::printf("# %s; model(us) is the prediction for the algorithm named on each table\n",
              describeModel(profile).c_str());
  for (const Comparison& c : comparisons) printComparison(c);
  if (!a.svg.empty()) {
    writeSvg(a.svg, comparisons, "AllReduce: measured (solid) and predicted (dashed)");
    std::printf("# plot written to %s\n", a.svg.c_str());
  }
  return 0;
}

}  // namespace

Action addCompareCommand(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd =
      app.add_subcommand("compare", "compare bench JSON files or nccl-tests logs with the model");
  cmd->add_option("files", args->files,
                  "ringlab bench --json files or nccl-tests all_reduce_perf logs")
      ->required();
  cmd->add_option("--algo", args->algo,
                  "algorithm to predict (default: the file's; ring for nccl-tests)");
  cmd->add_option("--svg", args->svg,
                  "also draw measured and predicted time against size (log-log)");
  args->model.add(*cmd);
  return [args] { return runCompareCommand(*args); };
}

}  // namespace ringlab::cli
