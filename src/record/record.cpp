#include "ringlab/record/record.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include <fmt/format.h>

#include "ringlab/core/enum_names.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/core/json_text.hpp"
#include "ringlab/core/limits.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/model/bandwidth.hpp"
#include "ringlab/model/cost.hpp"
#include "ringlab/record/run_logs.hpp"
#include "ringlab/version.hpp"

namespace ringlab::record {
namespace {

using nlohmann::json;

json timingJson(const Timing& t, std::uint64_t bytes, int ranks,
                const std::optional<double>& predictedUs) {
  json j = {{"time_us", t.timeUs},
            {"median_us", t.timeUs},
            {"min_us", t.minUs},
            {"max_us", t.maxUs},
            {"mean_us", t.meanUs},
            {"loop_mean_us", t.loopMeanUs},
            {"cpu_max_us", t.cpuMaxUs},
            {"cpu_sum_us", t.cpuSumUs},
            {"algbw_GBps", model::algbwGBps(bytes, t.timeUs)},
            {"busbw_GBps", model::allReduceBusbwGBps(bytes, t.timeUs, ranks)},
            {"iterations", t.iterations}};
  j["wrong"] = t.wrong ? json(*t.wrong) : json(nullptr);
  if (predictedUs) j["measured_over_predicted"] = t.timeUs / *predictedUs;
  if (!t.samplesUs.empty()) j["samples_us"] = t.samplesUs;
  if (!t.rankSamplesUs.empty()) j["rank_samples_us"] = t.rankSamplesUs;
  return j;
}

json rowJson(const RecordRow& row, const RunInfo& run) {
  const int ranks = run.ranks;
  const auto timing = [&](const std::optional<Timing>& t, const std::optional<double>& predicted) {
    return t ? timingJson(*t, row.bytes, ranks, predicted) : json(nullptr);
  };
  const std::optional<double> predictedOutOfPlace =
      row.predictedUs ? std::optional<double>(row.predictedOutOfPlace()) : std::nullopt;
  json peer = nullptr;
  if (row.peer) {
    peer = timingJson(*row.peer, row.bytes, ranks, std::nullopt);
    peer["library"] = row.peerLibrary;
  }
  return {{"size_bytes", row.bytes},
          {"count", row.count},
          {"dtype", row.dtype.empty() ? run.dtype : row.dtype},
          {"op", row.op.empty() ? run.op : row.op},
          {"algorithm", row.algorithm},
          {"predicted_us", row.predictedUs ? json(*row.predictedUs) : json(nullptr)},
          {"predicted_out_of_place_us",
           row.predictedOutOfPlaceUs ? json(*row.predictedOutOfPlaceUs) : json(nullptr)},
          {"out_of_place", timing(row.outOfPlace, predictedOutOfPlace)},
          {"in_place", timing(row.inPlace, row.predictedUs)},
          {"peer_mpi", peer}};
}

// Reads the JSON leniently: the required fields fail with the record at fault named, the rest
// default when absent. Every number present is checked against its range (kRecordRanges) before
// it is narrowed, so that p = 10^12 or size_bytes = -8 is named rather than wrapped.
class JsonReader {
 public:
  explicit JsonReader(const std::string& name) : name_(name) {}

  [[noreturn]] void fail(const std::string& what) const {
    throwInvalid(name_ + ": " + what +
                 " (expected a ringlab bench JSON record: run.p and rows of size_bytes with "
                 "in_place.time_us or out_of_place.time_us)");
  }

  // A whole number in lo..hi; `field` is its path in the record ("row 3: size_bytes").
  std::uint64_t whole(const json& v, const std::string& field, std::uint64_t lo,
                      std::uint64_t hi) const {
    return static_cast<std::uint64_t>(
        jsonWhole(v, name_, field, static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)));
  }

  // A finite number in lo..hi (above lo when `aboveLo`).
  double real(const json& v, const std::string& field, double lo, double hi,
              bool aboveLo = false) const {
    const double x = v.is_number() ? v.get<double>() : std::nan("");
    if (!(std::isfinite(x) && x <= hi && (aboveLo ? x > lo : x >= lo))) {
      throwInvalid(fmt::format("{}: {} = {}: must be a number {} {} and <= {}", name_, field,
                               jsonValueText(v), aboveLo ? ">" : ">=", lo, hi));
    }
    return x;
  }

  RunInfo run(const json& j) const {
    if (!j.is_object() || !j.contains("run") || !j["run"].is_object()) fail("no \"run\" object");
    const json& r = j["run"];
    if (!r.contains("p")) fail("run.p is missing");
    RunInfo info;
    info.ranks = static_cast<int>(whole(r["p"], "run.p", 1, kMaxRanks));
    for (auto [key, field] : {std::pair{"ringlab_version", &info.version},
                              {"transport", &info.transport},
                              {"algorithm", &info.algorithm},
                              {"ring_order", &info.ringOrder},
                              {"topology", &info.topology},
                              {"placement", &info.placement},
                              {"dtype", &info.dtype},
                              {"op", &info.op},
                              {"host", &info.host},
                              {"date", &info.date}}) {
      if (r.contains(key) && r[key].is_string()) *field = r[key].get<std::string>();
    }
    return info;
  }

  std::optional<Timing> timing(const json& row, const char* kind, const std::string& at) const {
    if (!row.contains(kind) || row[kind].is_null()) return std::nullopt;
    const json& t = row[kind];
    if (!t.is_object() || !t.contains("time_us")) {
      fail(at + ": no " + kind + ".time_us");
    }
    const std::string in = at + ": " + kind + ".";
    Timing out;
    out.timeUs = real(t["time_us"], in + "time_us", 0, kMaxRecordMicros, true);
    out.minUs = time(t, "min_us", in);
    out.maxUs = time(t, "max_us", in);
    out.meanUs = time(t, "mean_us", in);
    out.loopMeanUs = time(t, "loop_mean_us", in);
    out.cpuMaxUs = time(t, "cpu_max_us", in);
    out.cpuSumUs = time(t, "cpu_sum_us", in);
    const auto present = [&](const char* key) { return t.contains(key) && !t[key].is_null(); };
    if (present("iterations"))
      out.iterations = static_cast<int>(whole(t["iterations"], in + "iterations", 0, kMaxCount));
    if (present("wrong")) out.wrong = whole(t["wrong"], in + "wrong", 0, model::kMaxModelBytes);
    if (t.contains("samples_us")) out.samplesUs = numbers(t["samples_us"], at, kind);
    if (t.contains("rank_samples_us") && t["rank_samples_us"].is_array()) {
      for (const json& rank : t["rank_samples_us"])
        out.rankSamplesUs.push_back(numbers(rank, at, kind));
    }
    return out;
  }

  std::vector<double> numbers(const json& list, const std::string& at, const char* kind) const {
    std::vector<double> out;
    if (!list.is_array()) fail(at + ": " + kind + ": samples are not a list");
    for (const json& s : list) {
      if (!s.is_number()) fail(at + ": " + kind + ": a sample is not a number");
      out.push_back(real(s, at + ": " + kind + " sample", 0, kMaxRecordMicros));
    }
    return out;
  }

  RecordRow row(const json& j, std::size_t k, const RunInfo& run) const {
    const std::string at = "row " + std::to_string(k);
    if (!j.is_object() || !j.contains("size_bytes")) {
      fail(at + ": no size_bytes");
    }
    RecordRow row;
    row.bytes = whole(j["size_bytes"], at + ": size_bytes", 0, model::kMaxModelBytes);
    const auto present = [&](const char* key) { return j.contains(key) && !j[key].is_null(); };
    if (present("count")) row.count = whole(j["count"], at + ": count", 0, model::kMaxModelBytes);
    // Rows written before -d all / -o all name no case: the run's.
    row.dtype =
        j.contains("dtype") && j["dtype"].is_string() ? j["dtype"].get<std::string>() : run.dtype;
    row.op = j.contains("op") && j["op"].is_string() ? j["op"].get<std::string>() : run.op;
    if (j.contains("algorithm") && j["algorithm"].is_string())
      row.algorithm = j["algorithm"].get<std::string>();
    if (present("predicted_us"))
      row.predictedUs = real(j["predicted_us"], at + ": predicted_us", 0, HUGE_VAL);
    if (row.predictedUs && present("predicted_out_of_place_us")) {
      row.predictedOutOfPlaceUs =
          real(j["predicted_out_of_place_us"], at + ": predicted_out_of_place_us", 0, HUGE_VAL);
    }
    row.outOfPlace = timing(j, "out_of_place", at);
    row.inPlace = timing(j, "in_place", at);
    row.peer = timing(j, "peer_mpi", at);
    if (row.peer && j["peer_mpi"].contains("library") && j["peer_mpi"]["library"].is_string())
      row.peerLibrary = j["peer_mpi"]["library"].get<std::string>();
    return row;
  }

  // A time in microseconds; 0 when absent (older records, logs).
  double time(const json& j, const char* key, const std::string& in) const {
    return j.contains(key) && !j[key].is_null() ? real(j[key], in + key, 0, kMaxRecordMicros) : 0.0;
  }

 private:
  const std::string& name_;
};

}  // namespace

namespace {

constexpr EnumName<OverRanks> kOverRanksNames[] = {{OverRanks::Rank0, "rank0"},
                                                   {OverRanks::Mean, "mean"},
                                                   {OverRanks::Min, "min"},
                                                   {OverRanks::Max, "max"}};

}  // namespace

const char* overRanksName(OverRanks over) {
  return enumName(std::span(kOverRanksNames), over).data();
}

std::optional<OverRanks> overRanksFromName(const std::string& name) {
  return findEnum(std::span(kOverRanksNames), name);
}

OverRanks overRanksFromCode(long long a, std::string_view what) {
  if (a < 0 || a > 3) {
    throwInvalid(std::string(what) + " " + std::to_string(a) +
                 ": must be 0 (rank 0), 1 (mean over ranks), 2 (min) or 3 (max), as nccl-tests");
  }
  return static_cast<OverRanks>(a);
}

std::string joinedNames(const std::vector<std::string>& names) {
  std::vector<std::string> seen;
  std::string joined;
  for (const std::string& n : names) {
    if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
    seen.push_back(n);
    joined += (joined.empty() ? "" : ",") + n;
  }
  return joined;
}

void requireOneCase(const RunRecord& record, const std::string& name) {
  if (record.rows.empty()) return;
  const RecordRow& first = record.rows.front();
  for (const RecordRow& row : record.rows) {
    if (row.dtype != first.dtype || row.op != first.op) {
      throwInvalid(name + ": the rows hold several cases (" + first.dtype + " " + first.op + ", " +
                   row.dtype + " " + row.op +
                   ", ...: a run of every datatype or op); this reads one: measure one datatype "
                   "and one op");
    }
  }
}

RunInfo currentRunInfo() {
  RunInfo info;
  info.version = version();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  info.host = host;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  info.date = date;
  return info;
}

json toJson(const RunInfo& info) {
  return {{"ringlab_version", info.version},
          {"transport", info.transport},
          {"algorithm", info.algorithm},
          {"ring_order", info.ringOrder},
          {"topology", info.topology},
          {"placement", info.placement},
          {"p", info.ranks},
          {"dtype", info.dtype},
          {"op", info.op},
          {"host", info.host},
          {"date", info.date}};
}

json toJson(const RunRecord& record) {
  json rows = json::array();
  for (const RecordRow& row : record.rows) rows.push_back(rowJson(row, record.run));
  return {{"run", toJson(record.run)},
          {"conventions",
           {{"time",
             "time_us = median_us: median over iterations of the iteration's time "
             "reduced over ranks as over_ranks says (nccl-tests -a), microseconds"},
            {"min_max_mean", "min_us, max_us, mean_us: over the same iterations"},
            {"loop_mean",
             "loop_mean_us: each rank's mean over its iterations, reduced over ranks as "
             "over_ranks says (nccl-tests' time)"},
            {"cpu",
             "cpu_max_us, cpu_sum_us: each rank's CPU time (user and system, its thread's clock) "
             "over its timed loop / iterations, the most of any rank and the sum over ranks"},
            {"samples", "samples_us: each iteration's time; rank_samples_us: each rank's"},
            {"algbw", "size / time, GB/s = 1e9 B/s"},
            {"busbw", "algbw x 2(p-1)/p (nccl-tests allreduce)"}}},
          {"segment_bytes", record.segmentBytes},
          // -n, or null when a time per size sized each measurement (its count is in the result).
          {"iterations", record.iterations ? json(*record.iterations) : json(nullptr)},
          {"seconds_per_size", record.secondsPerSize},
          {"warmup", record.warmup},
          {"over_ranks", record.overRanks ? json(overRanksName(*record.overRanks)) : json(nullptr)},
          {"rows", rows}};
}

RunRecord recordFromJson(const json& j, const std::string& name) {
  const JsonReader reader(name);
  RunRecord record;
  record.run = reader.run(j);
  if (!j.contains("rows") || !j["rows"].is_array()) reader.fail("no \"rows\" array");
  // A field present is read through its range check, so a string where a number belongs is named.
  const auto has = [&](const char* key) { return j.contains(key) && !j[key].is_null(); };
  if (has("segment_bytes"))
    record.segmentBytes =
        reader.whole(j["segment_bytes"], "segment_bytes", 0, model::kMaxModelBytes);
  if (has("iterations"))
    record.iterations = static_cast<int>(reader.whole(j["iterations"], "iterations", 0, kMaxCount));
  if (has("seconds_per_size"))
    record.secondsPerSize = reader.real(j["seconds_per_size"], "seconds_per_size", 0, 1e6);
  if (has("warmup"))
    record.warmup = static_cast<int>(reader.whole(j["warmup"], "warmup", 0, kMaxCount));
  if (j.contains("over_ranks")) {  // absent: a record from before -a, which took the max
    const json& over = j["over_ranks"];
    record.overRanks = over.is_string() ? overRanksFromName(over.get<std::string>()) : std::nullopt;
    if (!over.is_null() && !record.overRanks)
      reader.fail("over_ranks is not null, \"rank0\", \"mean\", \"min\" or \"max\"");
  }
  for (std::size_t k = 0; k < j["rows"].size(); ++k)
    record.rows.push_back(reader.row(j["rows"][k], k, record.run));
  checkRecordValues(record, name);
  return record;
}

namespace {

void checkTiming(const Timing& t, const std::string& where) {
  const auto check = [&](double value, const char* field, bool aboveZero) {
    if (!(value <= kMaxRecordMicros && (aboveZero ? value > 0 : value >= 0))) {
      throwInvalid(fmt::format("{}.{} = {}: must be a number {} 0 and <= {} us", where, field,
                               formatNumber(value),
                               aboveZero ? ">" : ">=", formatNumber(kMaxRecordMicros)));
    }
  };
  check(t.timeUs, "time_us", true);
  check(t.minUs, "min_us", false);
  check(t.maxUs, "max_us", false);
  check(t.meanUs, "mean_us", false);
  check(t.loopMeanUs, "loop_mean_us", false);
  check(t.cpuMaxUs, "cpu_max_us", false);
  check(t.cpuSumUs, "cpu_sum_us", false);
  for (const double sample : t.samplesUs) check(sample, "samples_us", false);
  for (const auto& rank : t.rankSamplesUs)
    for (const double sample : rank) check(sample, "rank_samples_us", false);
  if (t.iterations < 0 || static_cast<std::uint64_t>(t.iterations) > kMaxCount)
    throwInvalid(
        fmt::format("{}.iterations = {}: must be in 0..{}", where, t.iterations, kMaxCount));
}

}  // namespace

void checkRecordValues(const RunRecord& record, const std::string& name) {
  if (record.run.ranks < 0 || record.run.ranks > kMaxRanks) {
    throwInvalid(fmt::format("{}: p = {}: must be a whole number in 1..{}", name, record.run.ranks,
                             kMaxRanks));
  }
  if (record.rows.empty()) throwInvalid(name + ": no rows: the record measured no size");
  for (std::size_t k = 0; k < record.rows.size(); ++k) {
    const RecordRow& row = record.rows[k];
    const std::string where = fmt::format("{}: row {} (size {})", name, k, row.bytes);
    if (row.bytes > model::kMaxModelBytes) {
      throwInvalid(fmt::format("{}: size_bytes = {}: must be a whole number in 0..{}", where,
                               row.bytes, model::kMaxModelBytes));
    }
    // A count must be the size in elements of the row's type, when the type is one a log names.
    std::optional<LoggedType> type;
    try {
      type = parseLoggedType(row.dtype);
    } catch (const Error&) {
    }
    if (type && row.count != 0 && row.count * type->size != row.bytes) {
      throwInvalid(fmt::format("{}: count = {}: {} elements of {} ({} B each) are not {} bytes",
                               where, row.count, row.count, type->name, type->size, row.bytes));
    }
    for (const auto& [timing, side] : {std::pair{&row.outOfPlace, "out_of_place"},
                                       {&row.inPlace, "in_place"},
                                       {&row.peer, "peer_mpi"}}) {
      if (*timing) checkTiming(**timing, where + ": " + side);
    }
  }
}

LoggedRun parseOneRun(const std::string& text, const std::string& name) {
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start != std::string::npos && text[start] == '{') {
    const json j = parseJsonText(text, name);
    if (!j.contains("results")) return LoggedRun{.record = recordFromJson(j, name)};  // not -J
  }
  std::vector<LoggedRun> runs = parseRuns(text, name, {});
  if (runs.size() == 1) return std::move(runs.front());
  std::string names;
  for (const LoggedRun& run : runs) names += (names.empty() ? "" : "; ") + run.name;
  throwInvalid(name + ": holds several runs or cases (" + names +
               "); this reads one: pass a file with one (`ringlab compare` reads each)");
}

RunRecord parseRecord(const std::string& text, const std::string& name) {
  return parseOneRun(text, name).record;
}

RunRecord readRecord(const std::string& path, const std::string& what) {
  return parseRecord(readTextFile(path, what, kRecordInput), what + " " + path);
}

}  // namespace ringlab::record
