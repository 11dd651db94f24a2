// nccl-tests all_reduce_perf logs as run records, so that NCCL runs on a user's own cluster can be
// held against the same model as ringlab's own.
#include <cmath>
#include <sstream>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/measure/record.hpp"
#include "ringlab/model/bandwidth.hpp"

namespace ringlab::measure {
namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throwInvalid(name + ": " + what);
}

struct LogRow {
  std::uint64_t bytes = 0, count = 0;
  std::string type, op, root, oopWrong, ipWrong;
  double oopTime = 0, oopAlg = 0, oopBus = 0, ipTime = 0, ipAlg = 0, ipBus = 0;
};

LogRow parseRow(const std::string& line, bool hasRoot, const std::string& name) {
  std::istringstream fields(line);
  LogRow r;
  fields >> r.bytes >> r.count >> r.type >> r.op;
  if (hasRoot) fields >> r.root;
  fields >> r.oopTime >> r.oopAlg >> r.oopBus >> r.oopWrong >> r.ipTime >> r.ipAlg >> r.ipBus >>
      r.ipWrong;
  if (!fields || r.ipWrong.empty()) {
    fail(name, "truncated or malformed nccl-tests row: '" + line + "'");
  }
  return r;
}

// The collective is not named in the log; it is recognised from the data: for all_reduce,
// count = size / sizeof(type) and busbw = algbw x 2(p-1)/p.
DataType checkAllReduceRow(const LogRow& r, bool hasRoot, int ranks, const std::string& line,
                           const std::string& name) {
  DataType dtype;
  try {
    dtype = parseDataType(r.type);
  } catch (const Error&) {
    fail(name, "unknown datatype '" + r.type + "' in row '" + line + "'");
  }
  if (r.op == "none" || (hasRoot && r.root != "-1")) {
    fail(name, "this is a log of another collective (redop '" + r.op + "', root '" + r.root +
                   "'); compare reads all_reduce_perf logs");
  }
  if (r.count * dataTypeSize(dtype) != r.bytes) {
    fail(name, "count " + std::to_string(r.count) + " x " + std::to_string(dataTypeSize(dtype)) +
                   " bytes != size " + std::to_string(r.bytes) +
                   ": a log of reduce_scatter or another collective, not all_reduce_perf");
  }
  if (ranks > 1 && r.oopAlg >= 0.1) {
    const double factor = model::allReduceBusFactor(ranks);
    if (std::fabs(r.oopBus / r.oopAlg - factor) > 0.05 * factor + 0.02) {
      fail(name, "busbw/algbw = " + std::to_string(r.oopBus / r.oopAlg) + " but all_reduce over " +
                     std::to_string(ranks) + " ranks has 2(p-1)/p = " + std::to_string(factor) +
                     ": another collective");
    }
  }
  return dtype;
}

Timing logTiming(double timeUs) {
  Timing t;
  t.timeUs = timeUs;
  return t;
}

}  // namespace

// nccl-tests prints one "#  Rank  N Group ..." line per rank, a column header naming the columns,
// and one row per size.
RunRecord recordFromNcclTests(const std::string& text, const std::string& name) {
  RunRecord record;
  record.source = "nccl-tests all_reduce_perf";
  record.overRanks = std::nullopt;  // the log does not say which -a ran
  RunInfo& run = record.run;
  std::istringstream in(text);
  std::string line;
  bool sawHeader = false, hasRoot = false, sawSummary = false;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == "#") {
      std::string second;
      words >> second;
      if (second == "Rank") ++run.ranks;
      if (second == "size") {
        sawHeader = true;
        hasRoot = line.find(" root ") != std::string::npos;
      }
      if (second == "Avg") sawSummary = true;
      continue;
    }
    if (!sawHeader || first.empty()) continue;
    const LogRow r = parseRow(line, hasRoot, name);
    const DataType dtype = checkAllReduceRow(r, hasRoot, run.ranks, line, name);
    RecordRow row;
    row.bytes = r.bytes;
    row.count = r.count;
    row.dtype = dataTypeName(dtype);
    row.op = r.op;
    row.outOfPlace = logTiming(r.oopTime);
    row.inPlace = logTiming(r.ipTime);
    record.rows.push_back(row);
  }
  if (!sawHeader) fail(name, "no nccl-tests column header ('#  size  count ...') found");
  if (run.ranks == 0)
    fail(name, "no '#  Rank N ...' lines: cannot tell p; the log is truncated at the top");
  if (record.rows.empty()) fail(name, "no measurement rows after the header");
  if (!sawSummary)
    fail(name, "no '# Avg bus bandwidth' line: the log is truncated (the run did not finish)");
  std::vector<std::string> types, ops;
  for (const RecordRow& row : record.rows) {
    types.push_back(row.dtype);
    ops.push_back(row.op);
  }
  run.dtype = joinedNames(types);  // one name, or several for a log of -d all
  run.op = joinedNames(ops);
  return record;
}

}  // namespace ringlab::measure
