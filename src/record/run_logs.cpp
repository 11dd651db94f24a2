// Which reader a measurement file needs, from its content, and a record split into its cases.
#include "ringlab/record/run_logs.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "log_lines.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/core/json_text.hpp"
#include "ringlab/core/limits.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::record {
namespace {

using nlohmann::json;

bool isNcclTestsJson(const json& j) {
  return j.is_object() && j.contains("results") &&
         (j.contains("nccl_version") || j.contains("config"));
}

bool isOsuOutput(const std::string& text) {
  for (const std::string& line : logs::cleanLines(text)) {
    const std::vector<std::string> w = logs::words(line);
    if (w.size() >= 2 && w[0] == "#" && w[1] == "OSU") return true;
  }
  return false;
}

std::vector<LoggedRun> benchRuns(const json& j, const std::string& name) {
  const RunRecord record = recordFromJson(j, name);
  const std::string device =
      "CPU ranks (ringlab " +
      (record.run.transport.empty() ? std::string("bench") : record.run.transport) + ")";
  std::vector<LoggedRun> cases;
  for (RunRecord& one : splitCases(record)) cases.push_back({std::move(one), "", {}, device});
  return logs::namedRuns({std::move(cases)});
}

}  // namespace

std::vector<RunRecord> splitCases(const RunRecord& record) {
  std::vector<RunRecord> cases;
  for (const RecordRow& row : record.rows) {
    auto it = std::find_if(cases.begin(), cases.end(), [&](const RunRecord& c) {
      return c.rows.front().dtype == row.dtype && c.rows.front().op == row.op;
    });
    if (it == cases.end()) {
      RunRecord one = record;
      one.rows = {row};
      cases.push_back(std::move(one));
    } else {
      it->rows.push_back(row);
    }
  }
  for (RunRecord& one : cases) {  // rows of older records name no case: the run's stays
    if (!one.rows.front().dtype.empty()) one.run.dtype = one.rows.front().dtype;
    if (!one.rows.front().op.empty()) one.run.op = one.rows.front().op;
  }
  if (cases.empty()) cases.push_back(record);
  return cases;
}

namespace {

std::vector<LoggedRun> runsOfText(const std::string& text, const std::string& name,
                                  const LogOptions& options) {
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) throwInvalid(name + ": empty file");
  if (text[start] == '{') {
    const json j = parseJsonText(text, name);
    return isNcclTestsJson(j) ? runsFromNcclTestsJson(j, name, options) : benchRuns(j, name);
  }
  // Log text enters here: a device or host name in it reaches no terminal raw.
  const std::string printable = printableLines(text);
  if (isOsuOutput(printable)) return runsFromOsu(printable, name, options);
  return runsFromNcclTests(printable, name, options);
}

}  // namespace

std::vector<LoggedRun> parseRuns(const std::string& text, const std::string& name,
                                 const LogOptions& options) {
  if (options.ranks && (*options.ranks < 1 || *options.ranks > kMaxRanks)) {
    throwInvalid(fmt::format("{} {}: the number of ranks must be in 1..{}", options.ranksName,
                             *options.ranks, kMaxRanks));
  }
  std::vector<LoggedRun> runs = runsOfText(text, name, options);
  for (const LoggedRun& run : runs) checkRecordValues(run.record, name);
  return runs;
}

std::vector<LoggedRun> readRuns(const std::string& path, const std::string& what,
                                const LogOptions& options) {
  return parseRuns(readTextFile(path, what, kRecordInput), what + " " + path, options);
}

}  // namespace ringlab::record
