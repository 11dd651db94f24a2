// OSU micro-benchmarks' osu_allreduce output as run records: a "# OSU <library> Allreduce Latency
// Test vX" line, from 7.x a "# Datatype: MPI_X." line, a "# Size  Avg Latency(us)" header with -f's
// "Min Latency(us)  Max Latency(us)  Iterations", and one row per size. The average is over
// iterations and then over ranks (osu_allreduce.c divides the ranks' sum by numprocs); there is
// one buffer pair, so no in-place time; and p is never printed.
#include <algorithm>
#include <cctype>
#include <cstdint>

#include <fmt/format.h>

#include "log_lines.hpp"
#include "ringlab/core/dtype.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/record/run_logs.hpp"

namespace ringlab::record {
namespace {

[[noreturn]] void failOsu(const std::string& name, const std::string& what) {
  throwInvalid(name + ": " + what);
}

struct OsuRun {
  std::string title, library, dtype;  // "OSU MPI-CUDA Allreduce Latency Test v7.5", "MPI-CUDA"
  std::vector<RecordRow> rows;
  std::vector<std::string> notes;
};

// MPI's name of the datatype (OMB 7's "# Datatype: MPI_INT.") as ringlab's.
std::string dtypeFromMpi(std::string mpi, const std::string& name) {
  if (!mpi.empty() && mpi.back() == '.') mpi.pop_back();
  static const std::pair<const char*, DataType> kNames[] = {
      {"MPI_CHAR", DataType::Int8},           {"MPI_SIGNED_CHAR", DataType::Int8},
      {"MPI_UNSIGNED_CHAR", DataType::Uint8}, {"MPI_INT", DataType::Int32},
      {"MPI_UNSIGNED", DataType::Uint32},     {"MPI_LONG", DataType::Int64},
      {"MPI_FLOAT", DataType::Float32},       {"MPI_DOUBLE", DataType::Float64}};
  for (const auto& [mpiName, type] : kNames)
    if (mpi == mpiName) return dataTypeName(type);
  failOsu(name, "datatype " + mpi +
                    ": valid are MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, "
                    "MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_FLOAT, MPI_DOUBLE");
}

// "# OSU MPI-CUDA Allreduce Latency Test v7.3": a new run, of the collective the title names.
void osuTitle(const std::vector<std::string>& w, std::vector<OsuRun>& runs,
              const std::string& name) {
  const std::string text = logs::joinedWords(w);
  if (w.size() < 4 || w[2] != "Allreduce") {
    failOsu(name, "'" + text + "' is not osu_allreduce output; compare reads AllReduce times");
  }
  runs.push_back({text, w[1], "", {}, {}});
}

void osuRow(const std::vector<std::string>& w, OsuRun& run, int line) {
  try {
    if (w.size() != 2 && w.size() != 5) throw Error(ErrorCode::InvalidArgument, "cut");
    RecordRow r;
    r.bytes = static_cast<std::uint64_t>(parseInteger(w[0], "size", 0, INT64_MAX));
    Timing t;
    t.timeUs = parseNumber(w[1], "Avg Latency(us)");
    if (w.size() == 5)
      t.iterations = static_cast<int>(parseInteger(w[4], "Iterations", 0, INT32_MAX));
    r.outOfPlace = t;
    run.rows.push_back(r);
  } catch (const Error&) {
    run.notes.push_back(fmt::format("line {} is a row cut short or malformed, left out: '{}'", line,
                                    logs::joinedWords(w)));
  }
}

LoggedRun osuLogged(OsuRun& run, const LogOptions& options, const std::string& name) {
  LoggedRun out;
  out.notes = run.notes;
  if (run.dtype.empty()) {
    run.dtype = "float32";
    out.notes.insert(out.notes.begin(),
                     "no '# Datatype' line: float32 assumed (the MPI_FLOAT "
                     "that osu_allreduce reduces before OMB 7)");
  }
  out.notes.push_back("no in-place times: OSU times one send and one receive buffer");
  const int ranks =
      logs::resolveRanks(0, "", options, name, "OSU output does not print p", out.notes);
  const bool gpu = run.library.find("CUDA") != std::string::npos ||
                   run.library.find("ROCM") != std::string::npos ||
                   run.library.find("ZE") != std::string::npos;
  out.device = (gpu ? "GPUs (OSU " : "CPU ranks (OSU ") + run.library + ")";
  RunRecord& record = out.record;
  record.source = run.title;
  record.overRanks = OverRanks::Mean;
  record.iterations = std::nullopt;
  record.run.ranks = ranks;
  record.run.dtype = run.dtype;
  record.run.op = "sum";
  const std::size_t typeSize = dataTypeSize(parseDataType(run.dtype));
  for (RecordRow& r : run.rows) {
    r.dtype = run.dtype;
    r.op = "sum";
    r.count = r.bytes / typeSize;
    record.rows.push_back(r);
  }
  return out;
}

}  // namespace

std::vector<LoggedRun> runsFromOsu(const std::string& text, const std::string& name,
                                   const LogOptions& options) {
  std::vector<OsuRun> runs;
  const std::vector<std::string> lines = logs::cleanLines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string> w = logs::words(lines[i]);
    if (w.size() >= 2 && w[0] == "#" && w[1] == "OSU") {
      osuTitle({w.begin() + 1, w.end()}, runs, name);
    } else if (runs.empty() || w.empty()) {
      continue;
    } else if (w.size() >= 3 && w[0] == "#" && w[1] == "Datatype:") {
      runs.back().dtype = dtypeFromMpi(w[2], name);
    } else if (std::all_of(w[0].begin(), w[0].end(),
                           [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      osuRow(w, runs.back(), static_cast<int>(i) + 1);
    }
  }
  std::vector<std::vector<LoggedRun>> out;
  for (OsuRun& run : runs) {
    if (run.rows.empty()) continue;
    out.push_back({osuLogged(run, options, name)});
  }
  if (out.empty())
    failOsu(name, "no osu_allreduce rows ('# Size  Avg Latency(us)' and sizes) found");
  return logs::namedRuns(std::move(out));
}

}  // namespace ringlab::record
