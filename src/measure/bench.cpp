#include "ringlab/measure/bench.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <memory>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "ringlab/core/check_data.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/memory_budget.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/job/transports.hpp"
#include "ringlab/measure/rank_threads.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/record/comparison.hpp"
#include "ringlab/record/statistics.hpp"

namespace ringlab::measure {
namespace {

std::string gibibytes(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / double(1ull << 30));
}

// What a run may take: 80% of this machine's memory, or less under an address-space limit.
struct MemoryLimit {
  std::uint64_t bytes = 0;
  std::string text;
};
MemoryLimit memoryLimit() {
  const std::uint64_t physical = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                                 static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE)) / 10 * 8;
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      limit.rlim_cur < physical) {
    return {limit.rlim_cur, "this process's address-space limit of " + gibibytes(limit.rlim_cur)};
  }
  return {physical, gibibytes(physical) + " (80% of this machine's memory)"};
}

// What `ranks` ranks of bench take on this host (threads of this process, or processes beside
// it): per rank two buffers of the largest size, 1 MiB (its thread or process and transport), and
// its plans, which a ring makes O(p) per message size: 1.5 KiB per rank of p over the sizes a
// sweep keeps. Fitted to bench over inproc with 1 KiB buffers: 89 MB at p = 64, 382 MB at
// p = 256, 860 MB at p = 512.
double benchBytesEstimate(std::uint64_t maxBytes, int ranks) {
  const double p = ranks;
  return p * (2.0 * static_cast<double>(maxBytes) + 1048576.0 + 1536.0 * p);
}

constexpr int kMaxIterations = 100000;

// The helpers below are collectives of bench's own, run with the default algorithm and the
// bench's timeout (`options`).

// Every rank leaves only once every rank has arrived.
void syncRanks(Communicator& comm, const CollectiveOptions& options) {
  std::int32_t token = 0;
  comm.allreduce(&token, &token, 1, DataType::Int32, ReduceOp::Sum, options);
}

double maxOverRanks(Communicator& comm, const CollectiveOptions& options, double value) {
  comm.allreduce(&value, &value, 1, DataType::Float64, ReduceOp::Max, options);
  return value;
}

std::uint64_t sumOverRanks(Communicator& comm, const CollectiveOptions& options,
                           std::uint64_t value) {
  comm.allreduce(&value, &value, 1, DataType::Uint64, ReduceOp::Sum, options);
  return value;
}

// The CPU time (user and system) of the calling thread: a rank's own, whether the ranks are threads
// of this process or processes (the transports run a rank's work on the thread that calls them).
double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// times[0..n) of every rank reduced over ranks as nccl-tests' -a: rank 0's own (no message; only
// rank 0 reports), their mean, min or max.
void reduceOverRanks(Communicator& comm, const CollectiveOptions& options, record::OverRanks over,
                     double* times, int n) {
  const auto count = static_cast<std::uint64_t>(n);
  switch (over) {
    case record::OverRanks::Rank0:
      return;
    case record::OverRanks::Mean:
      comm.allreduce(times, times, count, DataType::Float64, ReduceOp::Sum, options);
      for (int i = 0; i < n; ++i) times[i] /= comm.size();
      return;
    case record::OverRanks::Min:
      comm.allreduce(times, times, count, DataType::Float64, ReduceOp::Min, options);
      return;
    case record::OverRanks::Max:
      comm.allreduce(times, times, count, DataType::Float64, ReduceOp::Max, options);
      return;
  }
}

// Every rank's times[0..n), in microseconds, one list per rank.
std::vector<std::vector<double>> gatherRankTimes(Communicator& comm,
                                                 const CollectiveOptions& options,
                                                 const double* times, int n) {
  std::vector<double> all(static_cast<std::size_t>(n) * comm.size());
  comm.allgather(times, all.data(), static_cast<std::uint64_t>(n), DataType::Float64, options);
  std::vector<std::vector<double>> ranks(comm.size());
  for (int r = 0; r < comm.size(); ++r) {
    for (int i = 0; i < n; ++i) ranks[r].push_back(all[static_cast<std::size_t>(r) * n + i] * 1e6);
  }
  return ranks;
}

class RankSweep {
 public:
  RankSweep(const BenchConfig& config, Communicator& comm, RankBuffers& buffers)
      : config_(config), comm_(comm) {
    helpers_.exec.timeout = config.collective.exec.timeout;
    // Allocate and touch once, up front (first touches would otherwise be timed), and keep them in
    // the caller's RankBuffers for its next sweep. Where the transport has memory its peers read
    // in place (shm), the buffers come from it, as an application's would, so that large
    // messages go single-copy.
    if (buffers.bytes < config.maxBytes) {
      buffers.send = buffer(config.maxBytes, buffers.sendStorage);
      buffers.recv = buffer(config.maxBytes, buffers.recvStorage);
      buffers.bytes = config.maxBytes;
    }
    send_ = buffers.send;
    recv_ = buffers.recv;
    times_.resize(config.secondsPerSize > 0 ? kMaxIterations : config.iterations);
  }

  // The datatype and op of the rows that follow, with their check data in the send buffer.
  void setCase(DataType type, ReduceOp op) {
    type_ = type;
    op_ = op;
    fillCheckInput(type, op, comm_.rank(), send_, config_.maxBytes / esize());
  }

  record::RecordRow row(std::uint64_t bytes) {
    record::RecordRow row;
    row.bytes = bytes;
    row.count = bytes / esize();
    row.dtype = dataTypeName(type_);
    row.op = reduceOpName(op_);
    // The spec that ran this size, as the Communicator resolved it ("auto" included); read after
    // the first call, before the helpers' own calls on the same Communicator.
    std::optional<schedule::AlgorithmSpec> ran;
    const auto ringlab = [&](const void* src, void* dst, std::uint64_t n) {
      comm_.allreduce(src, dst, n, type_, op_, config_.collective);
      if (!ran) ran = comm_.resolvedAlgorithm();
    };
    row.outOfPlace = measure(row.count, false, ringlab);
    if (config_.inPlace) row.inPlace = measure(row.count, true, ringlab);
    row.algorithm = ran->name;
    if (config_.profile) {
      const model::ModelParams params = model::forSegments(
          config_.profile->params, static_cast<double>(config_.collective.exec.segmentBytes));
      row.predictedUs = record::predictedMicros(*ran, config_.ranks, bytes, type_, params);
      if (model::forOutOfPlace(params) != params) {
        row.predictedOutOfPlaceUs = record::predictedMicros(*ran, config_.ranks, bytes, type_,
                                                            model::forOutOfPlace(params));
      }
    }
    if (config_.peer) {
      row.peer = measure(row.count, false, [&](const void* src, void* dst, std::uint64_t n) {
        config_.peer(src, dst, n, type_, op_);
      });
      row.peerLibrary = config_.peerLibrary;
    }
    return row;
  }

 private:
  std::size_t esize() const { return dataTypeSize(type_); }

  template <typename Allreduce>
  record::Timing measure(std::uint64_t count, bool inPlace, const Allreduce& allreduce) {
    const void* src = inPlace ? recv_ : send_;
    auto once = [&] { allreduce(src, recv_, count); };
    if (inPlace) std::memcpy(recv_, send_, count * esize());
    for (int i = 0; i < config_.warmup; ++i) once();
    const int iterations = iterationCount(once);
    syncRanks(comm_, helpers_);
    // The CPU clock is read once on each side of the loop: no system call inside it.
    const double cpuBefore = threadCpuSeconds();
    auto last = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) {
      once();
      const auto now = std::chrono::steady_clock::now();
      times_[i] = std::chrono::duration<double>(now - last).count();
      last = now;
    }
    const double cpuPerCall = (threadCpuSeconds() - cpuBefore) / iterations;
    std::vector<std::vector<double>> rankTimes;
    if (config_.keepSamples &&
        static_cast<std::uint64_t>(iterations) * comm_.size() <= kMaxRankSamples) {
      rankTimes = gatherRankTimes(comm_, helpers_, times_.data(), iterations);
    }
    // Each rank's own loop, reduced over ranks before its iterations are (Timing::loopMeanUs).
    double loopSeconds =
        std::accumulate(times_.begin(), times_.begin() + iterations, 0.0) / iterations;
    reduceOverRanks(comm_, helpers_, config_.overRanks, &loopSeconds, 1);
    reduceOverRanks(comm_, helpers_, config_.overRanks, times_.data(), iterations);
    record::Timing result = record::summarise(
        std::vector<double>(times_.begin(), times_.begin() + iterations), config_.keepSamples);
    result.loopMeanUs = loopSeconds * 1e6;
    for (const std::vector<double>& rank : gatherRankTimes(comm_, helpers_, &cpuPerCall, 1)) {
      result.cpuMaxUs = std::max(result.cpuMaxUs, rank.front());
      result.cpuSumUs += rank.front();
    }
    result.rankSamplesUs = std::move(rankTimes);
    if (config_.check > 0) result.wrong = checkedRuns(count, inPlace, once);
    return result;
  }

  // -n, or with a time per size as many as fit in it, sized from the slowest rank's first run
  // (every rank must run the same number).
  template <typename Once>
  int iterationCount(const Once& once) {
    if (config_.secondsPerSize <= 0) return config_.iterations;
    syncRanks(comm_, helpers_);
    const auto start = std::chrono::steady_clock::now();
    once();
    const double first = maxOverRanks(
        comm_, helpers_,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return static_cast<int>(std::clamp(std::ceil(config_.secondsPerSize / std::max(first, 1e-9)),
                                       3.0, static_cast<double>(kMaxIterations)));
  }

  // Up to config.check runs on the check data, each compared with the closed form; the wrong
  // elements over all ranks of the first run that has any (nccl-tests -c), else 0.
  template <typename Once>
  std::uint64_t checkedRuns(std::uint64_t count, bool inPlace, const Once& once) {
    std::uint64_t wrong = 0;
    for (int c = 0; c < config_.check && wrong == 0; ++c) {
      fillCheckInput(type_, op_, comm_.rank(), inPlace ? recv_ : send_, count);
      once();
      wrong = sumOverRanks(comm_, helpers_, countWrong(type_, op_, comm_.size(), recv_, count));
      if (inPlace) std::memcpy(recv_, send_, count * esize());
    }
    return wrong;
  }

  const BenchConfig& config_;
  Communicator& comm_;
  CollectiveOptions helpers_;  // bench's own collectives: default algorithm, the bench's timeout
  DataType type_ = DataType::Float32;
  ReduceOp op_ = ReduceOp::Sum;
  std::byte* buffer(std::size_t bytes, std::vector<std::byte>& storage) {
    if (void* shared = comm_.allocateShared(bytes)) return static_cast<std::byte*>(shared);
    storage.resize(bytes);
    return storage.data();
  }

  std::byte* send_ = nullptr;  // the caller's RankBuffers
  std::byte* recv_ = nullptr;
  std::vector<double> times_;
};

}  // namespace

void validate(const BenchConfig& c) {
  const MeasureLabels& l = c.labels;
  if (c.types.empty() || c.ops.empty())
    throwInvalid(l.types + "/" + l.ops + ": name at least one datatype and op");
  for (DataType type : c.types) {
    elementCount(c.minBytes, type, l.minBytes);
    elementCount(c.maxBytes, type, l.maxBytes);
    if (c.stepBytes > 0) elementCount(c.stepBytes, type, l.stepBytes);
  }
  if (c.minBytes == 0) throwInvalid(l.minBytes + " 0: the sweep starts at 1 element or more");
  if (c.minBytes > c.maxBytes) {
    throwInvalid(l.minBytes + " " + std::to_string(c.minBytes) + " is larger than " + l.maxBytes +
                 " " + std::to_string(c.maxBytes));
  }
  checkedStepFactor(c.stepFactor, l.stepFactor);
  sweepSizes(c);  // a linear sweep of too many sizes is refused here
  if (c.check < 0) throwInvalid(l.check + " " + std::to_string(c.check) + ": must be >= 0");
  if (c.iterations < 1)
    throwInvalid(l.iterations + " " + std::to_string(c.iterations) + ": must be >= 1");
  if (!(c.secondsPerSize >= 0 && c.secondsPerSize <= 3600)) {
    throwInvalid(l.timePerSize + " " + formatNumber(c.secondsPerSize) +
                 "s: must be between 0 and 3600s");
  }
  if (c.warmup < 0) throwInvalid(l.warmup + " " + std::to_string(c.warmup) + ": must be >= 0");
  exec::validate(c.collective.exec);
  // The schedule must build and verify (for "auto", whatever it would choose for one element).
  for (DataType type : c.types) {
    model::buildSchedule(
        schedule::Collective::AllReduce, c.ranks,
        model::chooseAlgorithm(c.collective.algorithm, schedule::Collective::AllReduce, c.ranks, 1,
                               type, c.collective.autoModel));
  }
  // Refuse what cannot fit, with the figure, rather than swap or die part way.
  const MemoryLimit limit = memoryLimit();
  const double estimate = benchBytesEstimate(c.maxBytes, c.ranks);
  checkMemoryEstimate(estimate >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(estimate),
                      limit.bytes,
                      "p = " + std::to_string(c.ranks) + " ranks with two buffers of the largest " +
                          "size, " + formatSize(c.maxBytes) + ", and their schedules",
                      limit.text, "run fewer ranks or smaller sizes");
}

std::vector<std::uint64_t> sweepSizes(const BenchConfig& c) {
  return sizeSweep(c.minBytes, c.maxBytes, c.stepFactor, c.stepBytes);
}

record::RunRecord startRecord(const BenchConfig& config, record::RunInfo info) {
  record::RunRecord record;
  info.algorithm = config.collective.algorithm.name;
  info.ranks = config.ranks;
  std::vector<std::string> types, ops;
  for (DataType type : config.types) types.push_back(dataTypeName(type));
  for (ReduceOp op : config.ops) ops.push_back(reduceOpName(op));
  info.dtype = record::joinedNames(types);
  info.op = record::joinedNames(ops);
  record.run = std::move(info);
  record.segmentBytes = config.collective.exec.segmentBytes;
  if (config.secondsPerSize <= 0) record.iterations = config.iterations;
  record.secondsPerSize = config.secondsPerSize;
  record.warmup = config.warmup;
  record.overRanks = config.overRanks;
  return record;
}

void runBenchRank(const BenchConfig& config, Communicator& comm, const RowCallback& onRow) {
  RankBuffers buffers;
  runBenchRank(config, comm, onRow, buffers);
}

void runBenchRank(const BenchConfig& config, Communicator& comm, const RowCallback& onRow,
                  RankBuffers& buffers) {
  RankSweep sweep(config, comm, buffers);
  const std::vector<std::uint64_t> sizes = sweepSizes(config);
  ProgressMeter meter(comm.rank() == 0 ? config.progress : ProgressCallback{},
                      sizes.size() * config.types.size() * config.ops.size());
  for (DataType type : config.types) {
    for (ReduceOp op : config.ops) {
      sweep.setCase(type, op);
      for (std::uint64_t bytes : sizes) {
        meter.stage(formatSize(bytes));
        const record::RecordRow row = sweep.row(bytes);
        if (comm.rank() == 0) onRow(row);
        meter.advance();
      }
    }
  }
}

void runBenchThreads(const BenchConfig& config, const RowCallback& onRow) {
  validate(config);  // before any thread starts, so that bad options fail once, cleanly
  const std::unique_ptr<transport::ThreadWorld> world =
      job::threadWorld(config.transport, config.ranks);
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int r = 0; r < config.ranks; ++r)
    comms.push_back(std::make_unique<Communicator>(world->transport(r)));
  runRankThreads(*world, [&](int r) { runBenchRank(config, *comms[r], onRow); });
}

record::BenchSettings benchSettings(const BenchConfig& config) {
  return {.segmentBytes = config.collective.exec.segmentBytes,
          .iterations = config.iterations,
          .secondsPerSize = config.secondsPerSize,
          .warmup = config.warmup,
          .check = config.check,
          .peer = static_cast<bool>(config.peer),
          .peerLibrary = config.peerLibrary,
          .overRanks = config.overRanks,
          .algorithm = config.collective.algorithm.name,
          .profile = config.profile};
}

}  // namespace ringlab::measure
