#include "ringlab/measure/bench.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

#include "ringlab/core/check_data.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/measure/comparison.hpp"
#include "ringlab/measure/rank_threads.hpp"
#include "ringlab/measure/statistics.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/transport/inproc.hpp"

namespace ringlab::measure {
namespace {

std::uint64_t physicalMemoryBytes() {
  return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
         static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
}

constexpr int kMaxIterations = 100000;

// Every rank leaves only once every rank has arrived.
void syncRanks(Communicator& comm) {
  std::int32_t token = 0;
  comm.allreduce(&token, &token, 1, DataType::Int32, ReduceOp::Sum);
}

double maxOverRanks(Communicator& comm, double value) {
  comm.allreduce(&value, &value, 1, DataType::Float64, ReduceOp::Max);
  return value;
}

std::uint64_t sumOverRanks(Communicator& comm, std::uint64_t value) {
  comm.allreduce(&value, &value, 1, DataType::Uint64, ReduceOp::Sum);
  return value;
}

class RankSweep {
 public:
  RankSweep(const BenchConfig& config, Communicator& comm) : config_(config), comm_(comm) {
    // Allocate and touch once, up front: first touches would otherwise be timed.
    send_.resize(config.maxBytes);
    recv_.resize(config.maxBytes);
    fillCheckInput(config.type, config.op, comm.rank(), send_.data(), config.maxBytes / esize());
    times_.resize(config.secondsPerSize > 0 ? kMaxIterations : config.iterations);
  }

  RecordRow row(std::uint64_t bytes) {
    RecordRow row;
    row.bytes = bytes;
    row.count = bytes / esize();
    // The spec that runs this size ("auto" resolved the way every rank resolves it).
    const schedule::AlgorithmSpec ran = model::chooseAlgorithm(
        config_.collective.algorithm, schedule::Collective::AllReduce, config_.ranks, row.count,
        config_.type, config_.collective.autoModel, config_.collective.autoTable.get());
    row.algorithm = ran.name;
    if (config_.profile) {
      row.predictedUs = predictedMicros(ran, config_.ranks, bytes, config_.type, *config_.profile);
    }
    const auto ringlab = [&](const void* src, void* dst, std::uint64_t n) {
      comm_.allreduce(src, dst, n, config_.type, config_.op, config_.collective);
    };
    row.outOfPlace = measure(row.count, false, ringlab);
    row.inPlace = measure(row.count, true, ringlab);
    if (config_.peer) {
      row.peer = measure(row.count, false, [&](const void* src, void* dst, std::uint64_t n) {
        config_.peer(src, dst, n, config_.type, config_.op);
      });
      row.peerLibrary = config_.peerLibrary;
    }
    return row;
  }

 private:
  std::size_t esize() const { return dataTypeSize(config_.type); }

  template <typename Allreduce>
  Timing measure(std::uint64_t count, bool inPlace, const Allreduce& allreduce) {
    const void* src = inPlace ? recv_.data() : send_.data();
    auto once = [&] { allreduce(src, recv_.data(), count); };
    if (inPlace) std::memcpy(recv_.data(), send_.data(), count * esize());
    for (int i = 0; i < config_.warmup; ++i) once();
    int iterations = config_.iterations;
    if (config_.secondsPerSize > 0) {
      // Every rank must run the same number of iterations: size it from the slowest rank.
      syncRanks(comm_);
      const auto start = std::chrono::steady_clock::now();
      once();
      const double first = maxOverRanks(
          comm_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      iterations =
          static_cast<int>(std::clamp(std::ceil(config_.secondsPerSize / std::max(first, 1e-9)),
                                      3.0, static_cast<double>(kMaxIterations)));
    }
    syncRanks(comm_);
    auto last = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) {
      once();
      const auto now = std::chrono::steady_clock::now();
      times_[i] = std::chrono::duration<double>(now - last).count();
      last = now;
    }
    // An iteration takes as long as its slowest rank; report the median iteration.
    comm_.allreduce(times_.data(), times_.data(), static_cast<std::uint64_t>(iterations),
                    DataType::Float64, ReduceOp::Max);
    Timing result = summarise(std::vector<double>(times_.begin(), times_.begin() + iterations),
                              config_.keepSamples);
    std::uint64_t wrong = 0;
    if (config_.check) {
      fillCheckInput(config_.type, config_.op, comm_.rank(), inPlace ? recv_.data() : send_.data(),
                     count);
      once();
      wrong = countWrong(config_.type, config_.op, comm_.size(), recv_.data(), count);
      if (inPlace) std::memcpy(recv_.data(), send_.data(), count * esize());
    }
    wrong = sumOverRanks(comm_, wrong);
    if (config_.check) result.wrong = wrong;
    return result;
  }

  const BenchConfig& config_;
  Communicator& comm_;
  std::vector<std::byte> send_, recv_;
  std::vector<double> times_;
};

}  // namespace

void validate(const BenchConfig& c) {
  elementCount(c.minBytes, c.type, "-b/--minbytes");
  elementCount(c.maxBytes, c.type, "-e/--maxbytes");
  if (c.minBytes == 0) throwInvalid("-b/--minbytes 0: the sweep starts at 1 element or more");
  if (c.minBytes > c.maxBytes) {
    throwInvalid("-b/--minbytes " + std::to_string(c.minBytes) + " is larger than -e/--maxbytes " +
                 std::to_string(c.maxBytes));
  }
  if (c.stepFactor < 2)
    throwInvalid("-f/--stepfactor " + std::to_string(c.stepFactor) + ": must be >= 2");
  if (c.iterations < 1)
    throwInvalid("-n/--iters " + std::to_string(c.iterations) + ": must be >= 1");
  if (!(c.secondsPerSize >= 0 && c.secondsPerSize <= 3600)) {
    throwInvalid("-T/--time " + std::to_string(c.secondsPerSize) +
                 ": must be between 0 and 3600 seconds");
  }
  if (c.warmup < 0)
    throwInvalid("-w/--warmup_iters " + std::to_string(c.warmup) + ": must be >= 0");
  exec::validate(c.collective.exec);
  // The schedule must build and verify (for "auto", whatever it would choose for one element).
  model::buildSchedule(
      schedule::Collective::AllReduce, c.ranks,
      model::chooseAlgorithm(c.collective.algorithm, schedule::Collective::AllReduce, c.ranks, 1,
                             c.type, c.collective.autoModel));
  // Two buffers of maxBytes per rank, plus scratch; refuse what cannot fit rather than swap or die.
  const std::uint64_t needed =
      checkedMultiply(checkedMultiply(c.maxBytes, 2, "buffer size"),
                      static_cast<std::uint64_t>(c.ranks), "buffer size x p");
  const std::uint64_t available = physicalMemoryBytes() / 10 * 8;
  if (needed > available) {
    throwInvalid("-e/--maxbytes " + std::to_string(c.maxBytes) +
                 " with p = " + std::to_string(c.ranks) + " needs " + std::to_string(needed >> 20) +
                 " MiB of buffers; this machine allows " + std::to_string(available >> 20) +
                 " MiB (80% of its memory)");
  }
}

std::vector<std::uint64_t> sweepSizes(const BenchConfig& c) {
  return geometricSizes(c.minBytes, c.maxBytes, c.stepFactor);
}

RunRecord startRecord(const BenchConfig& config, RunInfo info) {
  RunRecord record;
  info.algorithm = config.collective.algorithm.name;
  info.ranks = config.ranks;
  info.dtype = dataTypeName(config.type);
  info.op = reduceOpName(config.op);
  record.run = std::move(info);
  record.segmentBytes = config.collective.exec.segmentBytes;
  if (config.secondsPerSize <= 0) record.iterations = config.iterations;
  record.secondsPerSize = config.secondsPerSize;
  record.warmup = config.warmup;
  return record;
}

void runBenchRank(const BenchConfig& config, Communicator& comm, const RowCallback& onRow) {
  RankSweep sweep(config, comm);
  const std::vector<std::uint64_t> sizes = sweepSizes(config);
  ProgressMeter meter(comm.rank() == 0 ? config.progress : ProgressCallback{}, sizes.size());
  for (std::uint64_t bytes : sizes) {
    meter.stage(formatSize(bytes));
    const RecordRow row = sweep.row(bytes);
    if (comm.rank() == 0) onRow(row);
    meter.advance();
  }
}

void runBenchThreads(const BenchConfig& config, const RowCallback& onRow) {
  validate(config);  // before any thread starts, so that bad options fail once, cleanly
  transport::InprocWorld world(config.ranks);
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int r = 0; r < config.ranks; ++r)
    comms.push_back(std::make_unique<Communicator>(world.transport(r)));
  runRankThreads(world, [&](int r) { runBenchRank(config, *comms[r], onRow); });
}

}  // namespace ringlab::measure
