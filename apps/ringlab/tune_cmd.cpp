// `ringlab tune`: measure every candidate algorithm over a size sweep on the transport at hand and
// write the decision table that `--algo auto --tuned` uses, optionally as Open MPI rules too.
#include <cstdio>
#include <fstream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "common_options.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/measure/tune.hpp"

namespace ringlab::cli {
namespace {

struct TuneArgs {
  int ranks = 4, iterations = 10, warmup = 1, rounds = 2;
  std::string minBytes = "8", maxBytes = "64M", dtype = "float32", op = "sum";
  long long stepFactor = 4;
  std::string algos = fmt::format("{}", fmt::join(measure::tuneCandidates(), ","));
  std::string out = "ringlab-tune.json", ompiRules;
};

measure::TuneConfig tuneConfig(const TuneArgs& a) {
  checkRanks(a.ranks);
  if (a.stepFactor < 2)
    throwInvalid("-f/--stepfactor " + std::to_string(a.stepFactor) + ": must be >= 2");
  measure::TuneConfig c;
  c.ranks = a.ranks;
  c.minBytes = parseSize(a.minBytes);
  c.maxBytes = parseSize(a.maxBytes);
  c.stepFactor = static_cast<std::uint64_t>(a.stepFactor);
  c.type = parseDataType(a.dtype);
  c.op = parseReduceOp(a.op);
  c.iterations = a.iterations;
  c.warmup = a.warmup;
  c.rounds = a.rounds;
  c.algorithms = splitList(a.algos);
  measure::validate(c);  // unknown algorithm, bad sizes: refused before anything runs
  return c;
}

void printTable(const measure::TuneConfig& c, const model::DecisionTable& table) {
  std::printf("# ringlab tune: allreduce, p %d, %s, transport %s, host %s, version %s, %s\n",
              table.ranks, table.dtype.c_str(), table.transport.c_str(), table.host.c_str(),
              table.ringlabVersion.c_str(), table.date.c_str());
  std::printf(
      "# time(us): out-of-place, median of %d iterations, best of %d interleaved rounds; every "
      "run checked\n",
      c.iterations, c.rounds);
  std::string head = fmt::format("# {:>12}", "size (B)");
  for (const auto& name : c.algorithms) head += fmt::format(" {:>19}", name);
  std::printf("%s  fastest\n", head.c_str());
  for (const model::MeasuredSize& m : table.measured) {
    std::string line = fmt::format("  {:>12}", m.bytes);
    for (const auto& name : c.algorithms) line += fmt::format(" {:>19.1f}", m.timeUs.at(name));
    std::printf("%s  %s\n", line.c_str(), m.fastest().c_str());
  }
  std::printf("# rules (from this size up):\n");
  for (const model::DecisionRule& r : table.rules()) {
    std::printf("#   %12llu B  %s\n", static_cast<unsigned long long>(r.fromBytes),
                r.algorithm.c_str());
  }
}

int runTuneCommand(const TuneArgs& a) {
  const measure::TuneConfig config = tuneConfig(a);
  std::ofstream out(a.out);
  if (!out) throwInvalid("--out " + a.out + ": cannot open for writing");
  std::ofstream rulesOut;
  if (!a.ompiRules.empty()) {
    rulesOut.open(a.ompiRules);
    if (!rulesOut) throwInvalid("--ompi-rules " + a.ompiRules + ": cannot open for writing");
  }
  const model::DecisionTable table = measure::tune(config, measure::currentRunInfo());
  printTable(config, table);
  out << model::toJson(table).dump(2) << "\n";
  std::printf("# decision table written to %s (use: ringlab bench --algo auto --tuned %s)\n",
              a.out.c_str(), a.out.c_str());
  if (rulesOut.is_open()) {
    rulesOut << model::toOpenMpiRules(table);
    std::printf(
        "# Open MPI rules written to %s (use: mpirun --mca coll_tuned_use_dynamic_rules 1 "
        "--mca coll_tuned_dynamic_rules_filename %s ...)\n",
        a.ompiRules.c_str(), a.ompiRules.c_str());
  }
  return 0;
}

}  // namespace

Action addTuneCommand(CLI::App& app) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* cmd =
      app.add_subcommand("tune", "measure every algorithm per size and write a decision table");
  cmd->add_option("-p,--ranks", args->ranks, "number of ranks")->capture_default_str();
  cmd->add_option("-b,--minbytes", args->minBytes, "smallest size")->capture_default_str();
  cmd->add_option("-e,--maxbytes", args->maxBytes, "largest size")->capture_default_str();
  cmd->add_option("-f,--stepfactor", args->stepFactor, "multiply the size by this each step")
      ->capture_default_str();
  cmd->add_option("-d,--datatype", args->dtype, "datatype")->capture_default_str();
  cmd->add_option("-o,--op", args->op, "reduction op")->capture_default_str();
  cmd->add_option("-n,--iters", args->iterations, "timed iterations per size")
      ->capture_default_str();
  cmd->add_option("-w,--warmup_iters", args->warmup, "untimed iterations per size")
      ->capture_default_str();
  cmd->add_option("--rounds", args->rounds, "interleaved rounds over the algorithms; best kept")
      ->capture_default_str();
  cmd->add_option("--algos", args->algos, "comma-separated candidates")->capture_default_str();
  cmd->add_option("--out", args->out, "decision table (JSON) to write")->capture_default_str();
  cmd->add_option("--ompi-rules", args->ompiRules, "also write an Open MPI coll_tuned rules file");
  return [args] { return runTuneCommand(*args); };
}

}  // namespace ringlab::cli
