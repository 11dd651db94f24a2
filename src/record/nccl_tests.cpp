// nccl-tests all_reduce_perf output as run records, so that NCCL runs on a user's own cluster can
// be held against the same model as ringlab's own. Read as people paste it: the layout of every
// nccl-tests 2.x version (src/util.cu's writeResultHeader and writeBenchmarkLine*), any other
// lines around and between the rows, launcher prefixes, and pastes cut at either end; and NCCL
// 1.x's all_reduce_test, whose times are in ms. What the text leaves out (rank lines, the unit of
// its times) is proved by the rows' own figures where their rounding allows (log_figures.hpp).
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "log_figures.hpp"
#include "log_lines.hpp"
#include "ringlab/core/dtype.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/model/bandwidth.hpp"
#include "ringlab/record/run_logs.hpp"

namespace ringlab::record {
namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throwInvalid(name + ": " + what);
}

// Where a row's fields sit (word indexes; -1: no such column) and how many a complete row has.
struct Columns {
  int redop = -1, root = -1, outOfPlace = -1, inPlace = -1;  // the two "time" columns
  std::size_t fields = 0;
  bool residual = false;  // NCCL 1.x's "res": the largest error, not a count of wrong elements
};

// From the column header's words (after the '#'): "size count type redop root time algbw busbw
// #wrong time ...", older logs without root (or, for broadcast, without redop), -I's per-iteration
// columns, a trailing timestamp column; NCCL 1.x's "bytes N type op time algbw busbw res ...".
// None for another line that starts with "size" or "bytes".
std::optional<Columns> columnsFromHeader(const std::vector<std::string>& w) {
  Columns c;
  int times = 0;
  for (std::size_t k = 0; k < w.size() && w[k] != "timestamp"; ++k) {
    const int i = static_cast<int>(k);
    if (w[k] == "redop" || w[k] == "op") c.redop = i;
    if (w[k] == "root") c.root = i;
    if (w[k] == "res") c.residual = true;
    if (w[k] == "time" || w[k] == "cputime") (times++ == 0 ? c.outOfPlace : c.inPlace) = i;
    c.fields = k + 1;
  }
  if (w.size() < 2 || (w[1] != "count" && w[1] != "N") || c.outOfPlace < 0 || c.inPlace < 0)
    return std::nullopt;
  // A pass is four words (time, algbw, busbw, #wrong or res), whether or not a header cut short
  // names them all: a row is complete only when it holds the in-place pass's four.
  c.fields = std::max(c.fields, static_cast<std::size_t>(c.inPlace) + 4);
  return c;
}

// A paste without the header: the layout from the row's length. 12 words: before the root column;
// 21: -I's per-iteration columns; else the 13 of nccl-tests 2.x.
Columns columnsFromLength(std::size_t words) {
  if (words == 12) return {3, -1, 4, 8, 12};
  if (words == 21) return {3, 4, 5, 13, 21};
  return {3, 4, 5, 9, 13};
}

// One pass of a row (out of place or in place) as printed; its time in the log's unit.
struct TextPass {
  logs::Figure time, algbw, busbw;
  std::optional<std::uint64_t> wrong;
};

struct TextRow {
  int line = 0;
  std::uint64_t bytes = 0, count = 0;
  std::string type, op, root;
  TextPass outOfPlace, inPlace;
};

// One run as the text shows it (from its "nThread" line, or the file's start, to the next run).
struct TextRun {
  std::string version, program, device;
  std::string ncclAlgo, ncclProto;  // as the lines before its first row set them
  std::set<std::string> hosts;      // from the rank lines' "on HOST"
  int rankLines = 0, highestRank = -1, nranks = 0;
  bool nccl1 = false;  // NCCL 1.x's all_reduce_test (its "res" column)
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

std::optional<std::uint64_t> wrongCount(const std::string& s, const Columns& c) {
  if (s == "N/A" || c.residual) return std::nullopt;  // run with -c 0, or an error, not a count
  return static_cast<std::uint64_t>(parseNumberIn(s, "#wrong", 0, 1e18));
}

TextPass parsePass(const std::vector<std::string>& w, const Columns& c, int time) {
  return {logs::parseFigure(w[time], "time"), logs::parseFigure(w[time + 1], "algbw"),
          logs::parseFigure(w[time + 2], "busbw"), wrongCount(w[time + 3], c)};
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
    r.outOfPlace = parsePass(w, c, c.outOfPlace);
    r.inPlace = parsePass(w, c, c.inPlace);
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
    } else if (w[0] == "bytes" || w[0] == "Avg") {
      comment(w, line);  // NCCL 1.x's header and trailer, printed without the '#' by some builds
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
      if (w.size() > 1 && isUnsigned(w[1]) && w[1].size() < 8)
        run.highestRank = std::max(run.highestRank, std::stoi(w[1]));
      const auto on = std::find(w.begin(), w.end(), "on");
      if (on != w.end() && on + 1 != w.end()) run.hosts.insert(*(on + 1));
      const std::size_t bracket = line.find(']');
      if (run.device.empty() && bracket != std::string::npos)
        run.device = logs::joinedWords(logs::words(line.substr(bracket + 1)));
    }
    if (is(0, "size") || is(0, "bytes")) {
      if (const std::optional<Columns> c = columnsFromHeader(w)) {
        if (!current().rows.empty()) runs.emplace_back();  // a second table: another run
        current().columns = c;
        current().sawHeader = true;
        current().nccl1 = c->residual;
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

// 1 PB/s: far above any link a log was measured over.
constexpr double kMaxLoggedGBps = 1e6;

std::string rowWhere(const TextRow& r) {
  return fmt::format("line {} (size {})", r.line, r.bytes);
}

// The collective is recognised from the data: for all_reduce, a redop, root -1 and count = size /
// sizeof(type); busbw = algbw x 2(p-1)/p is held to p by pOfFigures.
LoggedType checkAllReduceRow(const TextRow& r, const std::string& name) {
  const std::string where = rowWhere(r);
  LoggedType type;
  try {
    type = parseLoggedType(r.type);
  } catch (const Error& e) {
    fail(name, fmt::format("{}: {}", where, e.what()));
  }
  if (r.op.empty() || r.op == "none" || (!r.root.empty() && r.root != "-1")) {
    fail(name, fmt::format("{}: redop '{}', root '{}': a log of another collective; compare reads "
                           "all_reduce_perf logs",
                           where, r.op.empty() ? "(no column)" : r.op, r.root));
  }
  if (r.count * type.size != r.bytes) {
    fail(name, fmt::format("{}: count {} x {} bytes != size: a log of reduce_scatter or another "
                           "collective, not all_reduce_perf",
                           where, r.count, type.size));
  }
  // Each figure in its range: a time of 0, -5 or 1e300 is no measurement.
  for (const auto& passAndSide :
       {std::pair{&r.outOfPlace, "out-of-place"}, {&r.inPlace, "in-place"}}) {
    const auto& [pass, side] = passAndSide;
    const char* const sideName = side;
    const auto check = [&](double value, const char* column, double low, bool aboveLow,
                           double high) {
      if (!(value <= high && (aboveLow ? value > low : value >= low))) {
        fail(name, fmt::format("{}: {} {} = {}: must be {} {} and <= {}", where, sideName, column,
                               formatNumber(value), aboveLow ? ">" : ">=", formatNumber(low),
                               formatNumber(high)));
      }
    };
    check(pass->time.value, "time", 0, true, kMaxRecordMicros);
    check(pass->algbw.value, "algbw (GB/s)", 0, false, kMaxLoggedGBps);
    check(pass->busbw.value, "busbw (GB/s)", 0, false, kMaxLoggedGBps);
  }
  return type;
}

// ---------------------------------------------------------------------------------------------
// What the figures prove: the time column's unit, and p.

constexpr double kMicroseconds = 1e-6, kMilliseconds = 1e-3;

// The seconds per unit of the run's time column: microseconds (nccl-tests 2.x) unless its rows'
// algbw = size / time holds in milliseconds only (NCCL 1.x's all_reduce_test). A row that agrees
// in neither, or rows that disagree on the unit, are refused: their times cannot be read.
double timeUnitOf(const TextRun& run, const std::string& name, std::vector<std::string>& notes) {
  const TextRow *inMicro = nullptr, *inMilli = nullptr;
  for (const TextRow& r : run.rows) {
    for (const TextPass* pass : {&r.outOfPlace, &r.inPlace}) {
      const bool micro = logs::algbwAgrees(r.bytes, pass->time, kMicroseconds, pass->algbw);
      const bool milli = logs::algbwAgrees(r.bytes, pass->time, kMilliseconds, pass->algbw);
      if (!micro && !milli) {
        const double t = pass->time.value;
        fail(name, fmt::format("{}: time {} and algbw {} GB/s disagree in either unit: {} bytes "
                               "in {} us is {:.4g} GB/s, in {} ms {:.4g} GB/s",
                               rowWhere(r), t, pass->algbw.value, r.bytes, t, r.bytes / (t * 1e3),
                               t, r.bytes / (t * 1e6)));
      }
      if (micro && !milli && !inMicro) inMicro = &r;
      if (milli && !micro && !inMilli) inMilli = &r;
    }
  }
  if (inMicro && inMilli) {
    fail(name, fmt::format("{} reads in us and {} in ms (algbw = size / time): the rows of two "
                           "programs; pass one run's output",
                           rowWhere(*inMicro), rowWhere(*inMilli)));
  }
  if (!inMilli) return kMicroseconds;
  notes.push_back(fmt::format(
      "times read in ms{}: only in ms does size / time give the rows' algbw ({}: {} bytes in {} "
      "ms = {} GB/s)",
      run.nccl1 ? ", as NCCL 1.x's tests print them" : "", rowWhere(*inMilli), inMilli->bytes,
      inMilli->outOfPlace.time.value, inMilli->outOfPlace.algbw.value));
  return kMilliseconds;
}

// The p that every row's busbw/algbw allows within its rounding, and the rows that bound it.
struct FiguresRanks {
  logs::RanksAllowed allowed;
  std::string lowRow, highRow;  // the rows that set allowed.low and allowed.high

  bool decides() const { return allowed.low == allowed.high; }
  bool allows(int p) const { return p >= allowed.low && p <= allowed.high; }
  // "p = 16 by line 5 (size 199680): busbw/algbw = 2.98/1.59 = 1.874" (and the row of the other
  // bound where another row set it), or each bound and its row.
  std::string says() const {
    if (decides()) {
      return fmt::format("p = {} by {}{}", allowed.low, lowRow,
                         lowRow == highRow ? "" : " and " + highRow);
    }
    std::string out;
    if (allowed.low > 1) out = fmt::format("p >= {} by {}", allowed.low, lowRow);
    if (allowed.high != logs::kAnyRanks)
      out += fmt::format("{}p <= {} by {}", out.empty() ? "" : ", ", allowed.high, highRow);
    return out;
  }
};

std::string ratioRow(const TextRow& r, const TextPass& pass) {
  return fmt::format("{}: busbw/algbw = {}/{} = {:.3f}", rowWhere(r), pass.busbw.value,
                     pass.algbw.value, pass.busbw.value / pass.algbw.value);
}

FiguresRanks pOfFigures(const TextRun& run, const std::string& name) {
  FiguresRanks f;
  for (const TextRow& r : run.rows) {
    for (const TextPass* pass : {&r.outOfPlace, &r.inPlace}) {
      const logs::RanksAllowed a = logs::allReduceRanksAllowed(pass->algbw, pass->busbw);
      if (a.low == 1 && a.high == logs::kAnyRanks) continue;  // too coarse to tell
      const std::string row = ratioRow(r, *pass);
      if (a.low > a.high) {
        fail(name, row + ", which is 2(p-1)/p for no p: a log of another collective");
      }
      if (a.low > f.allowed.high || a.high < f.allowed.low) {
        fail(name, fmt::format("{}, but {}: the rows disagree on p (another collective, or the "
                               "rows of several runs)",
                               row, f.says()));
      }
      if (a.low > f.allowed.low) f.allowed.low = a.low, f.lowRow = row;
      if (a.high < f.allowed.high) f.allowed.high = a.high, f.highRow = row;
    }
  }
  return f;
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

// p from the evidence: the rows' figures, NCCL INFO's nranks, and the rank lines, of which a paste
// may keep only some (rank 71 alone; ranks 0, 1, "...", 15): the highest rank shown bounds p from
// below, and gives p only where nothing else does. A given p is held to each of them.
class RanksOf {
 public:
  RanksOf(const TextRun& run, FiguresRanks figures, const LogOptions& options, std::string name,
          std::vector<std::string>& notes)
      : run_(run),
        f_(std::move(figures)),
        options_(options),
        name_(std::move(name)),
        notes_(notes),
        listed_(run.highestRank + 1) {}

  int resolve() {
    if (options_.ranks) return given(*options_.ranks);
    if (run_.nranks > 0) {
      if (run_.rankLines == 0) {
        notes_.push_back(
            fmt::format("p = {} from the NCCL INFO lines ('nranks {}'): the '#  Rank' "
                        "lines are missing",
                        run_.nranks, run_.nranks));
      }
      return checked(run_.nranks, nranksHow());
    }
    if (f_.decides()) {
      const int p = checked(f_.allowed.low, f_.says());
      if (p != listed_ || !complete())
        notes_.push_back(fmt::format("p = {} from the figures ({}): {}", p, f_.says(), linesSay()));
      return p;
    }
    if (listed_ > 0 && f_.allows(listed_)) {
      if (!complete())
        notes_.push_back(fmt::format("p = {} from the highest rank line: {}", listed_, linesSay()));
      return checked(listed_, linesHow());
    }
    std::string missing = listed_ > 0 ? linesSay()
                                      : "no '#  Rank N ...' lines and no NCCL INFO 'nranks' (a "
                                        "paste that starts at the rows)";
    if (f_.allowed.low > 1) missing += ", and " + f_.says();
    fail(name_, fmt::format("{}; give the number of ranks with {} N", missing, options_.ranksName));
  }

 private:
  const TextRun& run_;
  FiguresRanks f_;
  const LogOptions& options_;
  std::string name_;
  std::vector<std::string>& notes_;
  int listed_;  // the highest rank a rank line names, plus one; 0 without rank lines

  bool complete() const { return run_.rankLines == listed_; }
  std::string nranksHow() const {
    return fmt::format("'nranks {}' in its NCCL INFO lines", run_.nranks);
  }
  std::string linesHow() const { return fmt::format("{} '#  Rank' lines", run_.rankLines); }
  std::string linesSay() const {
    if (listed_ == 0) return "the log has no '#  Rank' lines";
    return complete() ? fmt::format("the log lists ranks 0 to {}", listed_ - 1)
                      : fmt::format("the log shows {} of the '#  Rank' lines, up to rank {}",
                                    run_.rankLines, listed_ - 1);
  }
  std::string atLeastListed() const {
    return fmt::format("p >= {} (a '#  Rank' line for rank {})", listed_, listed_ - 1);
  }

  // p as the log gives it (`how`), held to the rest of what the log says of p.
  int checked(int p, const std::string& how) const {
    const auto refuse = [&](const std::string& says) {
      fail(name_, fmt::format("p = {} ({}), but the log says {}", p, how, says));
    };
    if (run_.nranks > 0 && p != run_.nranks)
      refuse(fmt::format("p = {} ({})", run_.nranks, nranksHow()));
    if (p < listed_) refuse(atLeastListed());
    if (!f_.allows(p)) refuse(f_.says());
    return p;
  }

  // The given p, refused where the log contradicts it ("-p 8 but the log says p = 16 (16 '#  Rank'
  // lines)"); accepted where the log only cannot tell, with a note.
  int given(int p) const {
    const std::string& value = options_.ranksName;
    if (p < 1) throwInvalid(fmt::format("{} {}: the number of ranks must be at least 1", value, p));
    const auto refuse = [&](const std::string& says) {
      fail(name_, fmt::format("{} {} but the log says {}", value, p, says));
    };
    if (run_.nranks > 0 && p != run_.nranks)
      refuse(fmt::format("p = {} ({})", run_.nranks, nranksHow()));
    if (p < listed_)
      refuse(complete() ? fmt::format("p = {} ({})", listed_, linesHow()) : atLeastListed());
    if (!f_.allows(p)) refuse(f_.says());
    if (run_.nranks == 0 && (p != listed_ || !complete())) {
      notes_.push_back(fmt::format("p = {} from {}: {}{}", p, value, linesSay(),
                                   f_.decides() ? ", and the figures agree" : ""));
    }
    return p;
  }
};

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

Timing loggedTiming(const TextPass& pass, double secondsPerUnit) {
  Timing t;
  t.timeUs = pass.time.value * (secondsPerUnit / kMicroseconds);
  t.wrong = pass.wrong;
  return t;
}

LoggedRun loggedCase(const TextRun& run, const std::vector<TextRow>& rows, int ranks,
                     double secondsPerUnit, const std::vector<std::string>& notes,
                     const std::string& name) {
  LoggedRun logged;
  logged.notes = notes;
  logged.device = "GPUs (" + (run.device.empty() ? "nccl-tests" : run.device) + ")";
  logged.hosts = static_cast<int>(run.hosts.size());
  logged.ncclAlgo = run.ncclAlgo;
  logged.ncclProto = run.ncclProto;
  RunRecord& record = logged.record;
  record.source = run.nccl1 ? "NCCL 1.x all_reduce_test"
                            : "nccl-tests" + (run.version.empty() ? "" : " " + run.version) +
                                  " all_reduce_perf";
  record.overRanks = std::nullopt;  // the log does not say which -a ran
  record.iterations = std::nullopt;
  record.run.ranks = ranks;
  for (const TextRow& r : rows) {
    RecordRow row;
    row.bytes = r.bytes;
    row.count = r.count;
    row.dtype = checkAllReduceRow(r, name).name;
    row.op = r.op;
    row.outOfPlace = loggedTiming(r.outOfPlace, secondsPerUnit);
    row.inPlace = loggedTiming(r.inPlace, secondsPerUnit);
    if (r.outOfPlace.wrong.value_or(0) + r.inPlace.wrong.value_or(0) > 0 &&
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
         "the table of `ringlab bench`: compare reads the JSON record bench writes, not its table");
  std::vector<std::vector<LoggedRun>> runs;
  for (const TextRun& run : reader.runs) {
    if (run.rows.empty()) continue;  // a process's header with no rows of its own
    if (!run.program.empty() && run.program.find("all_reduce") == std::string::npos)
      fail(name, "a log of " + run.program + "; compare reads all_reduce_perf logs");
    const std::vector<std::vector<TextRow>> cases = casesOf(run, name);
    for (const TextRow& r : run.rows) checkAllReduceRow(r, name);
    std::vector<std::string> notes = runNotes(run);
    const double unit = timeUnitOf(run, name, notes);
    const int ranks = RanksOf(run, pOfFigures(run, name), options, name, notes).resolve();
    std::vector<LoggedRun> logged;
    for (const auto& rows : cases)
      logged.push_back(loggedCase(run, rows, ranks, unit, notes, name));
    runs.push_back(std::move(logged));
  }
  if (runs.empty()) {
    for (const TextRun& run : reader.runs)
      if (!run.notes.empty()) fail(name, "no complete row; " + run.notes.front());
    fail(name,
         "neither a ringlab bench JSON record nor an nccl-tests log (no row 'size count "
         "type redop root time ...') nor osu_allreduce output");
  }
  return logs::namedRuns(std::move(runs));
}

}  // namespace ringlab::record
