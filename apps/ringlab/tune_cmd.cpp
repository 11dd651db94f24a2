// `ringlab tune`: measure every candidate algorithm over a size sweep on the transport the job uses
// (ranks as threads, or this process as one rank of a job, as bench does) and write the decision
// table that `--algo auto --tuned` uses, optionally as Open MPI rules and MPICH's selection file
// too (or export a table measured before: --tuned).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "measure_labels.hpp"
#include "option_groups.hpp"
#include "progress_line.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/exec/executor.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/io/model_files.hpp"
#include "ringlab/io/mpi_version.hpp"
#include "ringlab/job/launcher.hpp"
#include "ringlab/job/rank_world.hpp"
#include "ringlab/measure/launch_description.hpp"
#include "ringlab/measure/tune.hpp"
#include "ringlab/report/pictures.hpp"
#include "ringlab/report/tune_text.hpp"
#include "transport_option.hpp"

namespace ringlab::cli {
namespace {

struct TuneArgs {
  int ranks = kDefaultRanks, iterations = 5, warmup = 1, rounds = 5;
  SweepOptions sweep;
  std::string algos = fmt::format("{}", fmt::join(measure::tuneCandidates(), ","));
  std::string defaultAlgorithm = measure::TuneConfig{}.defaultAlgorithm;
  TransportOption transport;
  std::string timeout = "60s";
  bool ranksGiven = false;
  JsonOutput json{"ringlab-tune.json"};
  std::string ompiRules, ompiVersion, mpichJson, mpichVersion, svg;
  std::string tuned;  // export this table instead of measuring
};

measure::TuneConfig tuneConfig(const TuneArgs& a, std::chrono::milliseconds timeout) {
  checkRanks(a.ranks);
  measure::TuneConfig c;
  c.labels = measureFlagLabels();
  c.ranks = a.ranks;
  a.sweep.fill(c);
  c.iterations = a.iterations;
  c.warmup = a.warmup;
  c.rounds = a.rounds;
  c.algorithms = splitList(a.algos);
  c.defaultAlgorithm = a.defaultAlgorithm;
  c.timeout = timeout;
  measure::validate(c);  // unknown algorithm, bad sizes: refused before anything runs
  return c;
}

// The exports for the MPI libraries, each in the format of the release that will read it; the
// release is known (given or installed) before minutes of measuring, and each file is checked
// writable then too.
struct MpiExports {
  std::optional<model::LibraryVersion> openMpi, mpich;
};

MpiExports prepareExports(const TuneArgs& a) {
  MpiExports e;
  if (!a.ompiRules.empty()) {
    e.openMpi = io::openMpiVersion(a.ompiVersion, "--ompi-version");
    io::writeTextFile(a.ompiRules, "", "--ompi-rules");
  }
  if (!a.mpichJson.empty()) {
    e.mpich = io::mpichVersion(a.mpichVersion, "--mpich-version");
    io::writeTextFile(a.mpichJson, "", "--mpich-json");
  }
  return e;
}

// The launch line to use a file with, starting with a check that it is there: neither library
// says a word when the path it is given does not exist (Open MPI keeps its defaults, MPICH
// crashes), so "it ran" proves nothing without the check.
std::string useLine(const std::string& path, const std::string& launch) {
  const std::string where = std::filesystem::absolute(path).string();
  return fmt::format("#   test -r {0} && {1}\n", where, fmt::format(fmt::runtime(launch), where));
}

void writeExports(const TuneArgs& a, const MpiExports& e, const model::DecisionTable& table) {
  if (e.openMpi) {
    io::writeTextFile(a.ompiRules, model::toOpenMpiRules(table, *e.openMpi), "--ompi-rules");
    a.json.printText(
        fmt::format(
            "# Open MPI rules ({} format, for Open MPI {}) written to {}; use:\n",
            model::openMpiReadsRuleFileVersion2(*e.openMpi) ? "rule-file-version-2" : "classic",
            e.openMpi->text, a.ompiRules) +
        useLine(a.ompiRules,
                "mpirun --mca coll_tuned_use_dynamic_rules 1 "
                "--mca coll_tuned_dynamic_rules_filename {} ..."));
  }
  if (e.mpich) {
    io::writeTextFile(a.mpichJson, model::toMpichSelectionJson(table, *e.mpich), "--mpich-json");
    a.json.printText(
        fmt::format("# MPICH selection file (for MPICH {}) written to {}; use:\n", e.mpich->text,
                    a.mpichJson) +
        useLine(a.mpichJson, "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={} mpiexec ...") +
        "# (within one node MPICH 4 runs its shared-memory allreduce first; "
        "MPIR_CVAR_ALLREDUCE_POSIX_INTRA_ALGORITHM=mpir hands it to this selection)\n");
  }
}

int runTuneCommand(TuneArgs a) {
  if (!a.tuned.empty()) {  // export only
    if (a.ompiRules.empty() && a.mpichJson.empty()) {
      throwInvalid("--tuned " + a.tuned +
                   ": nothing to export; give --ompi-rules FILE and/or --mpich-json FILE");
    }
    const model::DecisionTable table = io::readDecisionTable(a.tuned);
    writeExports(a, prepareExports(a), table);
    return 0;
  }
  const auto timeout = exec::timeoutFromSeconds(parseSeconds(a.timeout), "--timeout");
  // Under mpirun or torchrun without --transport: the launcher's, not p separate runs. A rank
  // process takes p from its launcher or MPI, before anything is checked against p.
  job::Participation part =
      job::join(a.transport.jobRequest("tune", a.ranks, a.ranksGiven, timeout));
  a.ranks = part.ranks;
  if (part.role != job::Participation::Role::Launcher && !job::speaksForTheJob(part)) {
    a.json.path.clear();
    a.svg.clear();
    a.ompiRules.clear();
    a.mpichJson.clear();
  }
  // Bad options and unwritable outputs are refused before minutes of measuring, not after.
  const MpiExports exports = prepareExports(a);
  measure::TuneConfig config = tuneConfig(a, timeout);
  config.transport = part.transport->name;
  a.json.checkWritable();
  if (part.role == job::Participation::Role::Launcher) return job::launchCopies(part, timeout);
  if (!a.svg.empty()) io::writeTextFile(a.svg, "", "--svg");
  record::RunInfo info = record::currentRunInfo();
  info.transport = config.transport;
  info.placement = measure::describeLaunch(config.transport).placement;
  ProgressLine line("tune");
  model::DecisionTable table;
  if (part.role == job::Participation::Role::Rank) {
    Communicator comm(*part.world.transport);
    table = measure::tuneRank(config, info, comm, line.callback());
  } else {
    table = measure::tune(config, info, line.callback());
  }
  line.finish();
  if (!a.json.given()) return 0;  // a rank that does not speak for the job
  a.json.printText(report::tuneText(measure::tuneMethod(config), table));
  a.json.write(model::toJson(table).dump(2) + "\n");
  a.json.printText(
      fmt::format("# decision table written to {0} (use: ringlab bench --algo auto --tuned {0})\n",
                  a.json.path));
  writeExports(a, exports, table);
  if (!a.svg.empty()) {
    io::writeTextFile(a.svg, report::chartSvg(report::tuneChart(table)), "--svg");
    a.json.printText("# plot of the times and the choice per size written to " + a.svg + "\n");
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
  cmd->add_option("--rounds", args->rounds,
                  "interleaved rounds over the algorithms (>= 2): a size leaves the default only "
                  "for an algorithm whose 95% interval over the rounds says it is faster");
  cmd->add_option("--algos", args->algos, "comma-separated candidates");
  cmd->add_option("--default", args->defaultAlgorithm,
                  "the algorithm kept where no other is ahead beyond the noise (one of --algos)");
  args->transport.add(*cmd, kMeasuringTransportHelp);
  addTime(*cmd, "--timeout", args->timeout,
          "the deadline of each collective call, from its start, e.g. 60s");
  args->json.add(*cmd, "decision table to write");
  // Each MPI export: its file, and the release that reads it (default: the one installed here).
  const auto addExport = [cmd](const char* option, std::string& file, const std::string& what,
                               const char* versionOption, std::string& version, const char* tool) {
    cmd->add_option(option, file, "also write " + what)->type_name("FILE");
    cmd->add_option(versionOption, version,
                    std::string("the release that reads ") + option +
                        " (default: the installed one, from " + tool + ")")
        ->type_name("X.Y.Z");
  };
  addExport("--ompi-rules", args->ompiRules,
            "Open MPI coll/tuned rules, in the format of the release that reads them",
            "--ompi-version", args->ompiVersion, "ompi_info");
  addExport(
      "--mpich-json", args->mpichJson,
      "MPICH's collective selection file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, MPICH 4)",
      "--mpich-version", args->mpichVersion, "mpichversion");
  cmd->add_option("--tuned", args->tuned,
                  "export this decision table (from an earlier tune) instead of measuring")
      ->type_name("FILE");
  addSvg(*cmd, args->svg,
         "also draw every algorithm's time against size under the choice per size (SVG)");
  return [args, cmd] {
    args->ranksGiven = cmd->count("-p") > 0;
    args->transport.noteGiven(*cmd);
    return runTuneCommand(*args);
  };
}

}  // namespace ringlab::cli
