// nccl-tests all_reduce_perf output as run records, so that NCCL runs on a user's own cluster can
// be held against the same model as ringlab's own. Read as people paste it: the layout of every
// nccl-tests 2.x version (src/util.cu's writeResultHeader and writeBenchmarkLine*), any other
// lines around and between the rows, launcher prefixes, and pastes cut at either end.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "log_lines.hpp"
#include "ringlab/core/dtype.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/measure/run_logs.hpp"
#include "ringlab/model/bandwidth.hpp"

namespace ringlab::measure {
namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throwInvalid(name + ": " + what);
}

// Where a row's fields sit (word indexes; -1: no such column) and how many a complete row has.
struct Columns {
  int redop = -1, root = -1, outOfPlace = -1, inPlace = -1;  // the two "time" columns
  std::size_t fields = 0;
};

// From the column header's words (after the '#'): "size count type redop root time algbw busbw
// #wrong time ...", older logs without root (or, for broadcast, without redop), -I's per-iteration
// columns, a trailing timestamp column. None for another line that starts with "size".
std::optional<Columns> columnsFromHeader(const std::vector<std::string>& w) {
  Columns c;
  int times = 0;
  for (std::size_t k = 0; k < w.size() && w[k] != "timestamp"; ++k) {
    const int i = static_cast<int>(k);
    if (w[k] == "redop") c.redop = i;
    if (w[k] == "root") c.root = i;
    if (w[k] == "time" || w[k] == "cputime") (times++ == 0 ? c.outOfPlace : c.inPlace) = i;
    c.fields = k + 1;
  }
  if (w.size() < 2 || w[1] != "count" || c.outOfPlace < 0 || c.inPlace < 0) return std::nullopt;
  return c;
}

// A paste without the header: the layout from the row's length. 12 words: before the root column;
// 21: -I's per-iteration columns; else the 13 of nccl-tests 2.x.
Columns columnsFromLength(std::size_t words) {
  if (words == 12) return {3, -1, 4, 8, 12};
  if (words == 21) return {3, 4, 5, 13, 21};
  return {3, 4, 5, 9, 13};
}

struct TextRow {
  int line = 0;
  std::uint64_t bytes = 0, count = 0;
  std::string type, op, root;
  double outOfPlaceUs = 0, algbw = 0, busbw = 0, inPlaceUs = 0;
  std::optional<std::uint64_t> outOfPlaceWrong, inPlaceWrong;
};

// One run as the text shows it (from its "nThread" line, or the file's start, to the next run).
struct TextRun {
  std::string version, program, device;
  std::string ncclAlgo, ncclProto;  // as the lines before its first row set them
  std::set<std::string> hosts;      // from the rank lines' "on HOST"
  int rankLines = 0, nranks = 0;
  std::optional<Columns> columns;
  bool sawConfig = false, sawHeader = false, sawTrailer = false;
  std::vector<TextRow> rows;
  std::vector<std::string> notes;
};

bool isUnsigned(const std::string& s) {
  return !s.empty() && s.size() < 20 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// Size and count, then a word: the type.
bool looksLikeRow(const std::vector<std::string>& w) {
  return w.size() >= 3 && isUnsigned(w[0]) && isUnsigned(w[1]) &&
         std::isalpha(static_cast<unsigned char>(w[2][0]));
}

// What is left of a row cut after its size or count ("64  16").
bool looksLikeCutRow(const std::vector<std::string>& w) {
  return w.size() <= 2 && isUnsigned(w[0]) && (w.size() < 2 || isUnsigned(w[1]));
}

std::optional<std::uint64_t> wrongCount(const std::string& s) {
  if (s == "N/A") return std::nullopt;  // run with -c 0: not checked
  return static_cast<std::uint64_t>(parseNumber(s, "#wrong"));
}

// The row's fields; none when the row is cut short or a field is not a number.
std::optional<TextRow> parseRow(const std::vector<std::string>& w, const Columns& c, int line) {
  if (w.size() < c.fields) return std::nullopt;
  try {
    TextRow r;
    r.line = line;
    r.bytes = std::stoull(w[0]);
    r.count = std::stoull(w[1]);
    r.type = w[2];
    if (c.redop >= 0) r.op = w[c.redop];
    if (c.root >= 0) r.root = w[c.root];
    r.outOfPlaceUs = parseNumber(w[c.outOfPlace], "time");
    r.algbw = parseNumber(w[c.outOfPlace + 1], "algbw");
    r.busbw = parseNumber(w[c.outOfPlace + 2], "busbw");
    r.outOfPlaceWrong = wrongCount(w[c.outOfPlace + 3]);
    r.inPlaceUs = parseNumber(w[c.inPlace], "time");
    r.inPlaceWrong = wrongCount(w[c.inPlace + 3]);
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The lines of the text, each given to the run it belongs to.
class TextReader {
 public:
  std::vector<TextRun> runs;
  bool ringlabTable = false;  // `ringlab bench`'s own table, which has the nccl-tests layout

  void read(const std::string& line, int number) {
    std::vector<std::string> w = logs::words(line);
    if (w.empty()) return;
    noteNcclSetting(line, "NCCL_ALGO", algo);
    noteNcclSetting(line, "NCCL_PROTO", proto);
    if (logs::isNcclDebugLine(line)) {
      if (current().nranks == 0) current().nranks = logs::nranksIn(line);
    } else if (w[0][0] == '#') {
      w[0].erase(0, 1);
      if (w[0].empty()) w.erase(w.begin());
      if (!w.empty()) comment(w, line);
    } else if (looksLikeRow(w) ||
               (looksLikeCutRow(w) && (current().sawHeader || !current().rows.empty()))) {
      row(w, number);
    }
  }

 private:
  std::string algo, proto;  // NCCL_ALGO and NCCL_PROTO as the lines so far set them

  // A setting as a line shows it: "-x NCCL_ALGO=Ring" or "export NCCL_ALGO=ring" on a command
  // line, "NCCL INFO NCCL_ALGO set by environment to Ring" from NCCL_DEBUG=INFO. NCCL's ',' is
  // the spec's '+'.
  static void noteNcclSetting(const std::string& line, const std::string& name,
                              std::string& value) {
    std::size_t at = line.find(name + "=");
    std::size_t start = at + name.size() + 1;
    if (at == std::string::npos) {
      const std::string phrase = name + " set by environment to ";
      at = line.find(phrase);
      if (at == std::string::npos) return;
      start = at + phrase.size();
    }
    std::string found;
    for (std::size_t i = start;
         i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])); ++i) {
      if (line[i] != '"' && line[i] != '\'') found += line[i] == ',' ? '+' : line[i];
    }
    if (!found.empty()) value = found;
  }

  TextRun& current() {
    if (runs.empty()) runs.emplace_back();
    return runs.back();
  }
  // A line that opens a run ("nccl-tests version", "Collective test starting", "nThread") starts a
  // new one once the current run has its own.
  TextRun& opening() {
    if (current().sawConfig || !current().rows.empty()) runs.emplace_back();
    return current();
  }

  void comment(const std::vector<std::string>& w, const std::string& line) {
    const auto is = [&](std::size_t k, const char* word) { return w.size() > k && w[k] == word; };
    if (is(0, "nccl-tests") && is(1, "version") && w.size() > 2) opening().version = w[2];
    if (is(0, "Collective") && is(2, "starting:") && w.size() > 3) opening().program = w[3];
    if (is(0, "nThread")) opening().sawConfig = true;
    if (is(0, "ringlab") && is(1, "bench:")) ringlabTable = true;
    if (is(0, "Rank")) {
      TextRun& run = current();
      ++run.rankLines;
      const auto on = std::find(w.begin(), w.end(), "on");
      if (on != w.end() && on + 1 != w.end()) run.hosts.insert(*(on + 1));
      const std::size_t bracket = line.find(']');
      if (run.device.empty() && bracket != std::string::npos)
        run.device = logs::joinedWords(logs::words(line.substr(bracket + 1)));
    }
    if (is(0, "size")) {
      if (const std::optional<Columns> c = columnsFromHeader(w)) {
        if (!current().rows.empty()) runs.emplace_back();  // a second table: another run
        current().columns = c;
        current().sawHeader = true;
      }
    }
    if (is(0, "(B)")) current().sawHeader = true;  // the units line of a header cut at the top
    if (is(0, "Avg") && is(1, "bus")) current().sawTrailer = true;
  }

  void row(const std::vector<std::string>& w, int number) {
    TextRun& run = current();
    if (run.rows.empty()) {
      run.ncclAlgo = algo;
      run.ncclProto = proto;
    }
    const Columns c = run.columns ? *run.columns : columnsFromLength(w.size());
    if (std::optional<TextRow> r = parseRow(w, c, number)) {
      run.rows.push_back(*r);
    } else {
      run.notes.push_back(fmt::format("line {} is a row cut short or malformed, left out: '{}'",
                                      number, logs::joinedWords(w)));
    }
  }
};

// The collective is recognised from the data: for all_reduce, a redop, root -1, count = size /
// sizeof(type) and busbw = algbw x 2(p-1)/p.
DataType checkAllReduceRow(const TextRow& r, int ranks, const std::string& name) {
  const std::string where = fmt::format("line {} (size {})", r.line, r.bytes);
  DataType dtype;
  try {
    dtype = parseDataType(r.type);
  } catch (const Error&) {
    fail(name, fmt::format("{}: unknown datatype '{}'", where, r.type));
  }
  if (r.op.empty() || r.op == "none" || (!r.root.empty() && r.root != "-1")) {
    fail(name, fmt::format("{}: redop '{}', root '{}': a log of another collective; compare reads "
                           "all_reduce_perf logs",
                           where, r.op.empty() ? "(no column)" : r.op, r.root));
  }
  if (r.count * dataTypeSize(dtype) != r.bytes) {
    fail(name, fmt::format("{}: count {} x {} bytes != size: a log of reduce_scatter or another "
                           "collective, not all_reduce_perf",
                           where, r.count, dataTypeSize(dtype)));
  }
  if (ranks > 1 && r.algbw >= 0.1) {
    const double factor = model::allReduceBusFactor(ranks), ratio = r.busbw / r.algbw;
    if (std::fabs(ratio - factor) > 0.05 * factor + 0.02) {
      const long implied = ratio < 1.99 ? std::lround(2 / (2 - ratio)) : 0;
      fail(name, fmt::format("{}: busbw/algbw = {:.3f}, but all_reduce over p = {} has 2(p-1)/p = "
                             "{:.3f}{}: another collective, or another p",
                             where, ratio, ranks, factor,
                             implied > 1 ? fmt::format(" (p = {} would give it)", implied) : ""));
    }
  }
  return dtype;
}

// Rows of one (type, op) case must grow in size; a size again with no header between is the
// output of two processes printing at once.
std::vector<std::vector<TextRow>> casesOf(const TextRun& run, const std::string& name) {
  std::vector<std::vector<TextRow>> cases;
  for (const TextRow& r : run.rows) {
    auto it = std::find_if(cases.begin(), cases.end(), [&](const auto& c) {
      return c.front().type == r.type && c.front().op == r.op;
    });
    if (it == cases.end()) {
      cases.push_back({r});
    } else if (r.bytes <= it->back().bytes) {
      fail(name, fmt::format("line {}: size {} after {} in the {} {} rows, with no header between: "
                             "the output of two processes is interleaved (nccl-tests built "
                             "without MPI, run under mpirun?); pass one process's output",
                             r.line, r.bytes, it->back().bytes, r.type, r.op));
    } else {
      it->push_back(r);
    }
  }
  return cases;
}

int ranksOf(const TextRun& run, const LogOptions& options, const std::string& name,
            std::vector<std::string>& notes) {
  if (run.rankLines == 0 && run.nranks > 0 && !options.ranks) {
    notes.push_back(
        fmt::format("p = {} from the NCCL INFO lines ('nranks {}'): the '#  Rank' "
                    "lines are missing",
                    run.nranks, run.nranks));
  }
  const int stated = run.rankLines > 0 ? run.rankLines : run.nranks;
  const std::string how = run.rankLines > 0
                              ? fmt::format("{} '#  Rank' lines", run.rankLines)
                              : fmt::format("'nranks {}' in its NCCL INFO lines", run.nranks);
  return logs::resolveRanks(stated, how, options, name,
                            "no '#  Rank N ...' lines and no NCCL INFO 'nranks' (a paste that "
                            "starts at the rows)",
                            notes);
}

std::vector<std::string> runNotes(const TextRun& run) {
  std::vector<std::string> notes;
  if (!run.sawHeader) {
    notes.push_back(
        "no column header ('#  size  count  type ...'): fields taken by position "
        "(size count type redop root, then out-of-place and in-place time algbw "
        "busbw #wrong)");
  }
  if (!run.sawTrailer) {
    notes.push_back(
        "no '# Avg bus bandwidth' line: the log ends after its rows (a paste cut "
        "short, or a run that did not finish)");
  }
  notes.insert(notes.end(), run.notes.begin(), run.notes.end());
  return notes;
}

Timing loggedTiming(double timeUs, std::optional<std::uint64_t> wrong) {
  Timing t;
  t.timeUs = timeUs;
  t.wrong = wrong;
  return t;
}

LoggedRun loggedCase(const TextRun& run, const std::vector<TextRow>& rows, int ranks,
                     const std::vector<std::string>& notes, const std::string& name) {
  LoggedRun logged;
  logged.notes = notes;
  logged.device = "GPUs (" + (run.device.empty() ? "nccl-tests" : run.device) + ")";
  logged.hosts = static_cast<int>(run.hosts.size());
  logged.ncclAlgo = run.ncclAlgo;
  logged.ncclProto = run.ncclProto;
  RunRecord& record = logged.record;
  record.source =
      "nccl-tests" + (run.version.empty() ? "" : " " + run.version) + " all_reduce_perf";
  record.overRanks = std::nullopt;  // the log does not say which -a ran
  record.iterations = std::nullopt;
  record.run.ranks = ranks;
  for (const TextRow& r : rows) {
    const DataType dtype = checkAllReduceRow(r, ranks, name);
    RecordRow row;
    row.bytes = r.bytes;
    row.count = r.count;
    row.dtype = dataTypeName(dtype);
    row.op = r.op;
    row.outOfPlace = loggedTiming(r.outOfPlaceUs, r.outOfPlaceWrong);
    row.inPlace = loggedTiming(r.inPlaceUs, r.inPlaceWrong);
    if (r.outOfPlaceWrong.value_or(0) + r.inPlaceWrong.value_or(0) > 0 &&
        logged.notes.size() == notes.size()) {
      logged.notes.push_back(
          fmt::format("the log counts wrong elements from size {} on: those "
                      "rows time a run whose results were corrupt",
                      r.bytes));
    }
    record.rows.push_back(row);
  }
  record.run.dtype = record.rows.front().dtype;
  record.run.op = record.rows.front().op;
  return logged;
}

}  // namespace

std::vector<LoggedRun> runsFromNcclTests(const std::string& text, const std::string& name,
                                         const LogOptions& options) {
  TextReader reader;
  const std::vector<std::string> lines = logs::cleanLines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) reader.read(lines[i], static_cast<int>(i) + 1);
  if (reader.ringlabTable)
    fail(name,
         "the table of `ringlab bench`: compare reads its record (ringlab bench --json FILE)");
  std::vector<std::vector<LoggedRun>> runs;
  for (const TextRun& run : reader.runs) {
    if (run.rows.empty()) continue;  // a process's header with no rows of its own
    if (!run.program.empty() && run.program.find("all_reduce") == std::string::npos)
      fail(name, "a log of " + run.program + "; compare reads all_reduce_perf logs");
    const std::vector<std::vector<TextRow>> cases = casesOf(run, name);
    std::vector<std::string> notes = runNotes(run);
    const int ranks = ranksOf(run, options, name, notes);
    std::vector<LoggedRun> logged;
    for (const auto& rows : cases) logged.push_back(loggedCase(run, rows, ranks, notes, name));
    runs.push_back(std::move(logged));
  }
  if (runs.empty()) {
    for (const TextRun& run : reader.runs)
      if (!run.notes.empty()) fail(name, "no complete row; " + run.notes.front());
    fail(name,
         "neither a `ringlab bench --json` file nor an nccl-tests log (no row 'size count "
         "type redop root time ...') nor osu_allreduce output");
  }
  return logs::namedRuns(std::move(runs));
}

}  // namespace ringlab::measure
