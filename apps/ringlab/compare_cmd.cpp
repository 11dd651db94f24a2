// `ringlab compare`: measurements (ringlab bench --json, nccl-tests all_reduce_perf logs) against
// the model, as a table and optionally a log-log SVG.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "option_groups.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/measure/comparison.hpp"
#include "ringlab/report/comparison.hpp"

namespace ringlab::cli {
namespace {

struct CompareArgs {
  std::vector<std::string> files;
  std::string algo;  // empty: as recorded in the file, ring for nccl-tests logs
  std::string svg;
  ModelOptions model;
};

int runCompareCommand(const CompareArgs& a) {
  const io::ResolvedModel model = a.model.resolve();
  const model::Profile& profile = model.profile;
  std::vector<measure::Comparison> comparisons;
  for (const std::string& file : a.files) {
    const measure::RunRecord record = measure::readRecord(file, "measurements");
    comparisons.push_back(measure::compare(record, measure::comparedAlgorithm(record, a.algo),
                                           profile, "measurements " + file));
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
  CLI::App* cmd =
      app.add_subcommand("compare", "compare bench JSON files or nccl-tests logs with the model");
  cmd->add_option("files", args->files,
                  "ringlab bench --json files or nccl-tests all_reduce_perf logs")
      ->required();
  cmd->add_option("--algo", args->algo,
                  "algorithm to predict (default: the file's; ring for nccl-tests)");
  addSvg(*cmd, args->svg, "also draw measured and predicted time against size (log-log)");
  args->model.add(*cmd);
  return [args] { return runCompareCommand(*args); };
}

}  // namespace ringlab::cli
