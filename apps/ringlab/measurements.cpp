#include "measurements.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ringlab/core/error.hpp"

namespace ringlab::cli {
namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throwInvalid(name + ": " + what);
}

Measurements fromBenchJson(const nlohmann::json& j, const std::string& name) {
  Measurements m;
  m.source = "ringlab bench";
  try {
    const auto& run = j.at("run");
    m.algorithm = run.at("algorithm").get<std::string>();
    m.ranks = run.at("p").get<int>();
    m.type = parseDataType(run.at("dtype").get<std::string>());
    for (const auto& row : j.at("rows")) {
      m.rows.push_back({row.at("size_bytes").get<std::uint64_t>(),
                        row.at("out_of_place").at("time_us").get<double>(),
                        row.at("in_place").at("time_us").get<double>()});
    }
  } catch (const nlohmann::json::exception& e) {
    fail(name, std::string("not a complete `ringlab bench --json` file (") + e.what() + ")");
  }
  return m;
}

// nccl-tests prints one "#  Rank  N Group ..." line per rank, a column header naming the columns,
// and one row per size. The collective is not named in the log; it is recognised from the data:
// for all_reduce, count = size / sizeof(type) and busbw = algbw x 2(p-1)/p.
Measurements fromNcclTests(const std::string& text, const std::string& name) {
  Measurements m;
  m.source = "nccl-tests all_reduce_perf";
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
      if (second == "Rank") ++m.ranks;
      if (second == "size") {
        sawHeader = true;
        hasRoot = line.find(" root ") != std::string::npos;
      }
      if (second == "Avg") sawSummary = true;
      continue;
    }
    if (!sawHeader || first.empty()) continue;
    std::istringstream fields(line);
    std::uint64_t bytes = 0, count = 0;
    std::string type, op, root, oopWrong, ipWrong;
    double oopTime = 0, oopAlg = 0, oopBus = 0, ipTime = 0, ipAlg = 0, ipBus = 0;
    fields >> bytes >> count >> type >> op;
    if (hasRoot) fields >> root;
    fields >> oopTime >> oopAlg >> oopBus >> oopWrong >> ipTime >> ipAlg >> ipBus >> ipWrong;
    if (!fields || ipWrong.empty()) {
      fail(name, "truncated or malformed nccl-tests row: '" + line + "'");
    }
    DataType dtype;
    try {
      dtype = parseDataType(type);
    } catch (const Error&) {
      fail(name, "unknown datatype '" + type + "' in row '" + line + "'");
    }
    if (m.rows.empty()) m.type = dtype;
    if (op == "none" || (hasRoot && root != "-1")) {
      fail(name, "this is a log of another collective (redop '" + op + "', root '" + root +
                     "'); compare reads all_reduce_perf logs");
    }
    if (count * dataTypeSize(dtype) != bytes) {
      fail(name, "count " + std::to_string(count) + " x " + std::to_string(dataTypeSize(dtype)) +
                     " bytes != size " + std::to_string(bytes) +
                     ": a log of reduce_scatter or another collective, not all_reduce_perf");
    }
    if (m.ranks > 1 && oopAlg >= 0.1) {
      const double factor = 2.0 * (m.ranks - 1) / m.ranks;
      if (std::fabs(oopBus / oopAlg - factor) > 0.05 * factor + 0.02) {
        fail(name, "busbw/algbw = " + std::to_string(oopBus / oopAlg) + " but all_reduce over " +
                       std::to_string(m.ranks) + " ranks has 2(p-1)/p = " + std::to_string(factor) +
                       ": another collective");
      }
    }
    m.rows.push_back({bytes, oopTime, ipTime});
  }
  if (!sawHeader) fail(name, "no nccl-tests column header ('#  size  count ...') found");
  if (m.ranks == 0)
    fail(name, "no '#  Rank N ...' lines: cannot tell p; the log is truncated at the top");
  if (m.rows.empty()) fail(name, "no measurement rows after the header");
  if (!sawSummary)
    fail(name, "no '# Avg bus bandwidth' line: the log is truncated (the run did not finish)");
  return m;
}

}  // namespace

Measurements parseMeasurements(const std::string& text, const std::string& name) {
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) fail(name, "empty file");
  if (text[start] == '{') {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      fail(name, std::string("not valid JSON (") + e.what() + ")");
    }
    return fromBenchJson(j, name);
  }
  if (text.find("#  Rank") != std::string::npos || text.find("# nThread") != std::string::npos ||
      text.find("out-of-place") != std::string::npos) {
    return fromNcclTests(text, name);
  }
  fail(name, "neither a `ringlab bench --json` file nor an nccl-tests log");
}

Measurements readMeasurements(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, "cannot be read (missing or not readable)");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parseMeasurements(buffer.str(), path);
}

}  // namespace ringlab::cli
