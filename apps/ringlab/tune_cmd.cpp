// `ringlab tune`: measure every candidate algorithm over a size sweep on the transport at hand and
// write the decision table that `--algo auto --tuned` uses, optionally as Open MPI rules too.
#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "option_groups.hpp"
#include "progress_line.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/measure/tune.hpp"
#include "ringlab/report/pictures.hpp"
#include "ringlab/report/tune_text.hpp"

namespace ringlab::cli {
namespace {

struct TuneArgs {
  int ranks = kDefaultRanks, iterations = 10, warmup = 1, rounds = 2;
  SweepOptions sweep;
  std::string algos = fmt::format("{}", fmt::join(measure::tuneCandidates(), ","));
  JsonOutput json{"ringlab-tune.json"};
  std::string ompiRules, svg;
};

measure::TuneConfig tuneConfig(const TuneArgs& a) {
  checkRanks(a.ranks);
  measure::TuneConfig c;
  c.ranks = a.ranks;
  a.sweep.fill(c);
  c.iterations = a.iterations;
  c.warmup = a.warmup;
  c.rounds = a.rounds;
  c.algorithms = splitList(a.algos);
  measure::validate(c);  // unknown algorithm, bad sizes: refused before anything runs
  return c;
}

int runTuneCommand(const TuneArgs& a) {
  const measure::TuneConfig config = tuneConfig(a);
  // Unwritable outputs are refused before minutes of measuring, not after.
  a.json.checkWritable();
  if (!a.ompiRules.empty()) io::writeTextFile(a.ompiRules, "", "--ompi-rules");
  if (!a.svg.empty()) io::writeTextFile(a.svg, "", "--svg");
  ProgressLine line("tune");
  const model::DecisionTable table =
      measure::tune(config, measure::currentRunInfo(), line.callback());
  line.finish();
  a.json.printText(report::tuneText(config, table));
  a.json.write(model::toJson(table).dump(2) + "\n");
  a.json.printText(
      fmt::format("# decision table written to {0} (use: ringlab bench --algo auto --tuned {0})\n",
                  a.json.path));
  if (!a.ompiRules.empty()) {
    io::writeTextFile(a.ompiRules, model::toOpenMpiRules(table), "--ompi-rules");
    a.json.printText(fmt::format(
        "# Open MPI rules written to {0} (use: mpirun --mca coll_tuned_use_dynamic_rules "
        "1 --mca coll_tuned_dynamic_rules_filename {0} ...)\n",
        a.ompiRules));
  }
  if (!a.svg.empty()) {
    io::writeTextFile(a.svg, report::chartSvg(report::tuneChart(table)), "--svg");
    a.json.printText("# plot of the times and the fastest per size written to " + a.svg + "\n");
  }
  return 0;
}

}  // namespace

Action addTuneCommand(CLI::App& app) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* cmd =
      app.add_subcommand("tune", "measure every algorithm per size and write a decision table");
  addRanks(*cmd, args->ranks);
  args->sweep.stepFactor = 4;
  args->sweep.add(*cmd);
  addIterations(*cmd, args->iterations, "timed iterations per size");
  addWarmup(*cmd, args->warmup, "untimed iterations per size");
  cmd->add_option("--rounds", args->rounds, "interleaved rounds over the algorithms; best kept");
  cmd->add_option("--algos", args->algos, "comma-separated candidates");
  args->json.add(*cmd, "decision table to write");
  cmd->add_option("--ompi-rules", args->ompiRules, "also write an Open MPI coll_tuned rules file");
  addSvg(*cmd, args->svg,
         "also draw every algorithm's time against size under the fastest per size (SVG)");
  return [args] { return runTuneCommand(*args); };
}

}  // namespace ringlab::cli
