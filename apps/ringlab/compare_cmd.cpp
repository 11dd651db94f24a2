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
#include "ringlab/measure/comparison.hpp"
#include "ringlab/measure/run_logs.hpp"
#include "ringlab/report/comparison.hpp"

namespace ringlab::cli {
namespace {

struct CompareArgs {
  std::vector<std::string> files;
  std::string algo;  // empty: as recorded in the file, ring for nccl-tests logs
  std::string svg;
  std::optional<int> ranks;  // none: as the logs say
  ModelOptions model;
};

int runCompareCommand(const CompareArgs& a) {
  const io::ResolvedModel model = a.model.resolve();
  const model::Profile& profile = model.profile;
  const measure::ModelSetup setup = measure::modelSetup(model, a.model);
  const measure::LogOptions options{a.ranks};
  std::vector<measure::Comparison> comparisons;
  for (const std::string& file : a.files) {
    for (const measure::LoggedRun& run : measure::readRuns(file, "measurements", options)) {
      comparisons.push_back(measure::compare(run, measure::comparedAlgorithm(run.record, a.algo),
                                             profile, setup, "measurements " + file));
    }
  }
  std::string svg;
  if (!a.svg.empty()) {
    try {
      svg =
          report::comparisonSvg(comparisons, "AllReduce: measured (solid) and predicted (dashed)");
    } catch (const Error& e) {
      throwInvalid("--svg " + a.svg + ": " + e.what());
    }
  }
  std::fputs(report::comparisonPreamble(model.source, profile).c_str(), stdout);
  for (const measure::Comparison& c : comparisons)
    std::fputs(report::comparisonTable(c).c_str(), stdout);
  if (!a.svg.empty()) {
    io::writeTextFile(a.svg, svg, "--svg");
    std::printf("# plot written to %s\n", a.svg.c_str());
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
      ->required();
  cmd->add_option("--algo", args->algo,
                  "algorithm to predict (default: the file's; ring for nccl-tests)");
  addRanks(*cmd, args->ranks,
           "number of ranks, for logs that do not list them (OSU output, pastes without the "
           "'#  Rank' lines)");
  addSvg(*cmd, args->svg, "also draw measured and predicted time against size (log-log)");
  args->model.add(*cmd);
  return [args] { return runCompareCommand(*args); };
}

}  // namespace ringlab::cli
