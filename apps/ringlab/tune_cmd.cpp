// `ringlab tune`: measure every candidate algorithm over a size sweep on the transport at hand and
// write the decision table that `--algo auto --tuned` uses, optionally as Open MPI rules too.
#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "option_groups.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/measure/tune.hpp"
#include "ringlab/report/pictures.hpp"
#include "ringlab/report/tune_text.hpp"

namespace ringlab::cli {
namespace {

struct TuneArgs {
  int ranks = 4, iterations = 10, warmup = 1, rounds = 2;
  SweepOptions sweep;
  std::string algos = fmt::format("{}", fmt::join(measure::tuneCandidates(), ","));
  std::string out = "ringlab-tune.json", ompiRules, svg;
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
  io::writeTextFile(a.out, "", "--out");
  if (!a.ompiRules.empty()) io::writeTextFile(a.ompiRules, "", "--ompi-rules");
  if (!a.svg.empty()) io::writeTextFile(a.svg, "", "--svg");
  const model::DecisionTable table = measure::tune(config, measure::currentRunInfo());
  std::fputs(report::tuneText(config, table).c_str(), stdout);
  io::writeTextFile(a.out, model::toJson(table).dump(2) + "\n", "--out");
  std::printf("# decision table written to %s (use: ringlab bench --algo auto --tuned %s)\n",
              a.out.c_str(), a.out.c_str());
  if (!a.ompiRules.empty()) {
    io::writeTextFile(a.ompiRules, model::toOpenMpiRules(table), "--ompi-rules");
    std::printf(
        "# Open MPI rules written to %s (use: mpirun --mca coll_tuned_use_dynamic_rules 1 "
        "--mca coll_tuned_dynamic_rules_filename %s ...)\n",
        a.ompiRules.c_str(), a.ompiRules.c_str());
  }
  if (!a.svg.empty()) {
    io::writeTextFile(a.svg, report::chartSvg(report::tuneChart(table)), "--svg");
    std::printf("# plot of the times and the fastest per size written to %s\n", a.svg.c_str());
  }
  return 0;
}

}  // namespace

Action addTuneCommand(CLI::App& app) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* cmd =
      app.add_subcommand("tune", "measure every algorithm per size and write a decision table");
  cmd->add_option("-p,--ranks", args->ranks, "number of ranks");
  args->sweep.stepFactor = 4;
  args->sweep.add(*cmd);
  cmd->add_option("-n,--iters", args->iterations, "timed iterations per size");
  cmd->add_option("-w,--warmup_iters", args->warmup, "untimed iterations per size");
  cmd->add_option("--rounds", args->rounds, "interleaved rounds over the algorithms; best kept");
  cmd->add_option("--algos", args->algos, "comma-separated candidates");
  cmd->add_option("--out", args->out, "decision table (JSON) to write");
  cmd->add_option("--ompi-rules", args->ompiRules, "also write an Open MPI coll_tuned rules file");
  cmd->add_option("--svg", args->svg,
                  "also draw every algorithm's time against size under the fastest per size (SVG)");
  return [args] { return runTuneCommand(*args); };
}

}  // namespace ringlab::cli
