// nccl-tests' -J output as run records. The format is its src/util.cu (2.17.x on, JSON_FILE_VERSION
// 1 to 3): "config" with nthreads, ngpus and "devices", "results" with one object per row (size,
// count, type, redop, root as a padded string, out_of_place and in_place holding time or cpu_time,
// alg_bw, bus_bw and nwrong), doubles that are NaN written as the string "nan", and version 1's
// misspelt "average_bus_bandwidith".
#include <fmt/format.h>

#include "log_lines.hpp"
#include "ringlab/core/dtype.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/json_text.hpp"
#include "ringlab/core/limits.hpp"
#include "ringlab/record/run_logs.hpp"

namespace ringlab::record {
namespace {

using nlohmann::json;

[[noreturn]] void failJson(const std::string& name, const std::string& what) {
  throwInvalid(name + ": " + what + " (expected nccl-tests -J output)");
}

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(' ');
  return first == std::string::npos ? "" : s.substr(first, s.find_last_not_of(' ') - first + 1);
}

// One side's time: "time", or "cpu_time" under -C; none for null (trace replay has no out-of-place)
// or NaN.
std::optional<Timing> jsonTiming(const json& row, const char* side, const std::string& where) {
  if (!row.contains(side) || !row[side].is_object()) return std::nullopt;
  const json& t = row[side];
  const json& time = t.contains("time") ? t["time"] : t.contains("cpu_time") ? t["cpu_time"] : t;
  if (!time.is_number()) return std::nullopt;
  Timing out;
  out.timeUs = time.get<double>();
  if (t.contains("nwrong") && t["nwrong"].is_number())
    out.wrong = static_cast<std::uint64_t>(  // nccl-tests writes it as a double
        jsonNumber(t["nwrong"], where, std::string(side) + ".nwrong", 0, 1e18));
  return out;
}

RecordRow jsonRow(const json& r, std::size_t k, const std::string& name) {
  const std::string where = fmt::format("results[{}]", k);
  if (!r.is_object() || !r.contains("size") || !r["size"].is_number_unsigned() ||
      !r.contains("type") || !r["type"].is_string())
    failJson(name, where + " has no size or type");
  RecordRow out;
  out.bytes = r["size"].get<std::uint64_t>();
  out.count =
      r.contains("count")
          ? static_cast<std::uint64_t>(jsonWhole(r["count"], name, where + ".count", 0, INT64_MAX))
          : 0;
  LoggedType type;
  try {
    type = parseLoggedType(r["type"].get<std::string>());
    out.dtype = type.name;
  } catch (const Error& e) {
    failJson(name, where + ": " + e.what());
  }
  out.op = r.contains("redop") ? jsonString(r["redop"], name, where + ".redop") : "";
  const std::string root =
      trimmed(r.contains("root") ? jsonString(r["root"], name, where + ".root") : "-1");
  if (out.op.empty() || out.op == "none" || root != "-1")
    failJson(name, where + ": redop '" + out.op + "', root '" + root +
                       "': a log of another collective; compare reads all_reduce_perf output");
  if (out.count * type.size != out.bytes)
    failJson(name, where + ": count x type size != size: not all_reduce_perf output");
  out.outOfPlace = jsonTiming(r, "out_of_place", name + ": " + where);
  out.inPlace = jsonTiming(r, "in_place", name + ": " + where);
  if (!out.outOfPlace && !out.inPlace) failJson(name, where + " has no time");
  return out;
}

// p: with MPI, "devices" holds one entry per process (util.cu parses the first "#  Rank" line of
// each process's block), each process driving nthreads x ngpus ranks; without MPI, one entry.
int statedRanks(const json& config, const std::string& name) {
  if (!config.is_object() || !config.contains("devices") || !config["devices"].is_array()) return 0;
  const auto perProcess = [&](const char* key) {
    return config.contains(key)
               ? jsonWhole(config[key], name, std::string("config.") + key, 1, kMaxRanks)
               : 1;
  };
  const auto ranks = static_cast<std::int64_t>(config["devices"].size()) * perProcess("nthreads") *
                     perProcess("ngpus");
  if (ranks > kMaxRanks) {
    throwInvalid(fmt::format("{}: config: {} ranks (devices x nthreads x ngpus): must be in 1..{}",
                             name, ranks, kMaxRanks));
  }
  return static_cast<int>(ranks);
}

}  // namespace

std::vector<LoggedRun> runsFromNcclTestsJson(const json& j, const std::string& name,
                                             const LogOptions& options) {
  if (!j.is_object() || !j.contains("results") || !j["results"].is_array())
    failJson(name, "no \"results\" array");
  if (j.contains("args") && j["args"].is_array() && !j["args"].empty() &&
      j["args"][0].is_string() &&
      j["args"][0].get<std::string>().find("all_reduce") == std::string::npos)
    failJson(name, "a run of " + j["args"][0].get<std::string>() + ", not all_reduce_perf");
  RunRecord record;
  record.source =
      fmt::format("nccl-tests -J (format {}) all_reduce_perf",
                  j.contains("version") ? jsonWhole(j["version"], name, "version", 0, 1000) : 0);
  record.overRanks = std::nullopt;
  record.iterations = std::nullopt;
  for (std::size_t k = 0; k < j["results"].size(); ++k)
    record.rows.push_back(jsonRow(j["results"][k], k, name));
  if (record.rows.empty())
    failJson(name, "\"results\" is empty: the run ended before its first size");
  std::vector<std::string> notes;
  if (!j.contains("average_bus_bandwidth") && !j.contains("average_bus_bandwidith"))
    notes.push_back("no \"average_bus_bandwidth\": the run did not finish");
  const json config = j.contains("config") ? j["config"] : json::object();
  record.run.ranks = logs::resolveRanks(statedRanks(config, name), "config.devices", options, name,
                                        "no config.devices", notes);
  std::string device = "GPUs (nccl-tests)";
  if (config.is_object() && config.contains("devices") && config["devices"].is_array() &&
      !config["devices"].empty() && config["devices"][0].is_object() &&
      config["devices"][0].contains("device_info") &&
      config["devices"][0]["device_info"].is_string())
    device = "GPUs (" + config["devices"][0]["device_info"].get<std::string>() + ")";
  std::vector<LoggedRun> cases;
  for (RunRecord& one : splitCases(record)) cases.push_back({std::move(one), "", notes, device});
  return logs::namedRuns({std::move(cases)});
}

}  // namespace ringlab::record
