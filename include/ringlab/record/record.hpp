#pragma once
// The run record: what one AllReduce measurement over a size sweep produced and how, so that every
// figure can be traced to what produced it. One type, one JSON writer and one reader, for every
// producer (`ringlab bench --json`, a framework's timings written in the same shape, an
// nccl-tests all_reduce_perf log) and every consumer (compare, plan --measured).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ringlab::record {

// The run's identity. Strings a producer does not know stay empty (a log of nccl-tests names no
// algorithm); the JSON writer writes them all, the reader takes whatever is there.
struct RunInfo {
  std::string version;
  std::string transport;
  std::string algorithm;
  std::string ringOrder;
  std::string topology;
  std::string placement;  // which rank sits where
  int ranks = 0;
  std::string dtype;
  std::string op;
  std::string host;
  std::string date;  // UTC, ISO 8601
  bool operator==(const RunInfo&) const = default;
};

// Version, host and date of this process, now; the caller fills the rest.
RunInfo currentRunInfo();

// How an iteration's time is reduced over the ranks: nccl-tests' -a (its common.cu: 0 rank 0,
// 1 the mean over ranks, 2 the min, 3 the max; nccl-tests' default is 1, ringlab's 3).
enum class OverRanks { Rank0 = 0, Mean = 1, Min = 2, Max = 3 };
// "rank0", "mean", "min", "max": the record's over_ranks.
const char* overRanksName(OverRanks over);
// The one of those names, or none.
std::optional<OverRanks> overRanksFromName(const std::string& name);
// nccl-tests' number for it (0..3); throws InvalidArgument naming the value otherwise, starting
// with `what`, the caller's name for the number.
OverRanks overRanksFromCode(long long a, std::string_view what = "the reduction over ranks");

// One measured case (one size, out of place or in place). Times in microseconds; the time of an
// iteration is reduced over ranks as the record's overRanks says (the slowest rank's by default);
// `timeUs` is the median over iterations. min, max and mean are 0 where the source has none
// (older records, nccl-tests logs).
struct Timing {
  double timeUs = 0;  // median
  double minUs = 0, maxUs = 0, meanUs = 0;
  // Each rank's mean over its iterations (its timed loop / iterations), reduced over ranks as -a
  // says: nccl-tests' time, and OSU's Avg, Min and Max latency with -a 1, 2 and 3. With -a 1 it
  // equals meanUs. With -a 3, where the ranks' iterations alternate long and short out of phase
  // (more ranks than cores), each iteration's slowest rank is a long one, and the statistics over
  // iterations already reduced over ranks exceed it. 0: not recorded (records written before it).
  double loopMeanUs = 0;
  int iterations = 0;
  std::optional<std::uint64_t> wrong;  // elements off the closed form; none when not checked
  std::vector<double> samplesUs;       // per iteration, only when requested
  // Each rank's own time per iteration (samplesUs is their reduction), only when requested.
  std::vector<std::vector<double>> rankSamplesUs;
  // CPU time per call, user and system: each rank's CPU clock over its timed loop / iterations,
  // the most of any rank (cpuMaxUs) and the sum over ranks (cpuSumUs). Against the wall time, the
  // sum says how many cores the ranks kept busy: ranks waiting on a socket while a core is idle,
  // or ranks spinning on a core a peer needs. 0: not recorded (older records, logs).
  double cpuMaxUs = 0, cpuSumUs = 0;
  bool operator==(const Timing&) const = default;
};

struct RecordRow {
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
  std::string dtype, op;              // the case this row measured (-d all, -o all: several)
  std::string algorithm;              // the algorithm that ran this size ("auto" resolved)
  std::optional<double> predictedUs;  // the model's time for it, when a profile was given
  // The same out of place, where the profile prices it apart (its out-of-place gamma); else none,
  // and predictedUs prices both.
  std::optional<double> predictedOutOfPlaceUs;
  double predictedOutOfPlace() const { return predictedOutOfPlaceUs.value_or(*predictedUs); }
  std::optional<Timing> outOfPlace;
  std::optional<Timing> inPlace;
  std::optional<Timing> peer;  // another library's allreduce on the same buffers
  std::string peerLibrary;
  bool operator==(const RecordRow&) const = default;
};

struct RunRecord {
  std::string source = "ringlab bench";  // what measured it (not written: the format says it)
  RunInfo run;
  std::uint64_t segmentBytes = 0;
  std::optional<int> iterations;  // -n; none when a time per size sized each measurement
  double secondsPerSize = 0;
  int warmup = 0;
  // How iteration times were reduced over ranks; none where the source does not say (an
  // nccl-tests log). Records written before -a existed took the max.
  std::optional<OverRanks> overRanks = OverRanks::Max;
  std::vector<RecordRow> rows;
  bool operator==(const RunRecord&) const = default;
};

// The names of a record's datatypes or ops, in order of first appearance, comma-separated: what
// RunInfo's dtype and op hold for a run of several (-d all, -o all).
std::string joinedNames(const std::vector<std::string>& names);

// Throws InvalidArgument "<name>: ..." when the rows hold more than one (dtype, op) case: a
// consumer that prices one curve (compare, plan --measured) needs a run of one.
void requireOneCase(const RunRecord& record, const std::string& name);

// The JSON of `ringlab bench --json`: "run", "conventions", "segment_bytes", "iterations",
// "seconds_per_size", "warmup", "over_ranks" and "rows" (size_bytes, count, dtype, op, algorithm,
// predicted_us, out_of_place, in_place, peer_mpi; each timing with time_us, median_us, min_us,
// max_us, mean_us, loop_mean_us, cpu_max_us, cpu_sum_us, algbw_GBps, busbw_GBps, iterations, wrong,
// measured_over_predicted when predicted, samples_us and rank_samples_us when kept).
nlohmann::json toJson(const RunInfo& info);
nlohmann::json toJson(const RunRecord& record);

// What the reader accepts: run.p in 1..kMaxRanks (core/limits.hpp); size_bytes, count and
// segment_bytes whole numbers in 0..2^53 (model::kMaxModelBytes); time_us > 0 and, like min_us,
// max_us, mean_us and the samples, <= kMaxRecordMicros (11.6 days); iterations and warmup whole
// numbers in 0..kMaxCount; predicted_us finite and >= 0; cpu_max_us and cpu_sum_us in
// 0..kMaxRecordMicros.
inline constexpr double kMaxRecordMicros = 1e12;
inline constexpr std::uint64_t kMaxCount = 1'000'000'000;

// The reader of that JSON. Needs run.p and rows of size_bytes; everything else is optional, so a
// framework's timings in the same shape read too. Throws InvalidArgument "<name>: <what is wrong>
// (expected `ringlab bench --json` output: ...)", or "<name>: <field> = <value>: must be ..." for a
// number out of its range.
RunRecord recordFromJson(const nlohmann::json& json, const std::string& name);

// What every reader of a run (this JSON, nccl-tests text and JSON, OSU output) holds its record
// to, whatever the format: p in 0..kMaxRanks (0: the log does not say), at least one row, sizes in
// 0..2^53, a count that is the size in elements of the row's type, time_us > 0 and the other
// times and samples in 0..kMaxRecordMicros. Throws InvalidArgument "<name>: row K (size N):
// <field> = <value>: must be ..." otherwise.
void checkRecordValues(const RunRecord& record, const std::string& name);

// A `ringlab bench --json` record, or a log of one run of one case in a format that
// record/run_logs.hpp reads (nccl-tests text or -J JSON, OSU osu_allreduce), detected from the
// content; `name` appears in error messages. Throws InvalidArgument for a log of several runs.
RunRecord parseRecord(const std::string& text, const std::string& name);

// The same from a file (bounded read); messages start "<what> <path>:" ("measured times x.json:").
RunRecord readRecord(const std::string& path, const std::string& what);

}  // namespace ringlab::record
