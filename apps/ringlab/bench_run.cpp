#include "bench_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "ringlab/core/check_data.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/transport/inproc.hpp"

namespace ringlab::cli {
namespace {

std::uint64_t physicalMemoryBytes() {
  return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
         static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
}

// Shared between the rank threads of one sweep. Buffers and communicators live here, not on the
// rank threads' stacks, so that nothing a peer may still touch is freed when one rank fails.
struct Sweep {
  explicit Sweep(int ranks)
      : world(ranks), barrier(ranks), seconds(ranks), wrong(ranks), sends(ranks), recvs(ranks) {
    for (int r = 0; r < ranks; ++r) comms.push_back(std::make_unique<Communicator>(world.transport(r)));
  }
  transport::InprocWorld world;
  std::barrier<> barrier;
  std::vector<double> seconds;
  std::vector<std::uint64_t> wrong;
  std::vector<std::vector<std::byte>> sends, recvs;
  std::vector<std::unique_ptr<Communicator>> comms;
  std::mutex errorMutex;
  std::exception_ptr error;
};

void runRank(const BenchConfig& config, const std::vector<std::uint64_t>& sizes, Sweep& sweep,
             int rank, const std::function<void(const BenchRow&)>& onRow) {
  Communicator& comm = *sweep.comms[rank];
  const std::size_t esize = dataTypeSize(config.type);
  // Allocate and touch once, on the rank's own thread: first touches would otherwise be timed.
  std::vector<std::byte>& send = sweep.sends[rank];
  std::vector<std::byte>& recv = sweep.recvs[rank];
  send.resize(config.maxBytes);
  recv.resize(config.maxBytes);
  fillCheckInput(config.type, config.op, rank, send.data(), config.maxBytes / esize);

  auto measure = [&](std::uint64_t count, bool inPlace) {
    const void* src = inPlace ? recv.data() : send.data();
    auto once = [&] { comm.allreduce(src, recv.data(), count, config.type, config.op, config.collective); };
    if (inPlace) std::memcpy(recv.data(), send.data(), count * esize);
    for (int i = 0; i < config.warmup; ++i) once();
    sweep.barrier.arrive_and_wait();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < config.iterations; ++i) once();
    sweep.seconds[rank] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    sweep.wrong[rank] = 0;
    if (config.check) {
      fillCheckInput(config.type, config.op, rank, inPlace ? recv.data() : send.data(), count);
      once();
      sweep.wrong[rank] = countWrong(config.type, config.op, config.ranks, recv.data(), count);
    }
    sweep.barrier.arrive_and_wait();
    BenchResult result;
    result.timeUs = *std::max_element(sweep.seconds.begin(), sweep.seconds.end()) * 1e6 / config.iterations;
    for (std::uint64_t w : sweep.wrong) result.wrong += w;
    sweep.barrier.arrive_and_wait();  // everyone has read this size's figures
    return result;
  };

  for (std::uint64_t bytes : sizes) {
    BenchRow row;
    row.bytes = bytes;
    row.count = bytes / esize;
    row.outOfPlace = measure(row.count, false);
    row.inPlace = measure(row.count, true);
    if (rank == 0) onRow(row);
  }
}

}  // namespace

void validate(const BenchConfig& c) {
  elementCount(c.minBytes, c.type, "-b/--minbytes");
  elementCount(c.maxBytes, c.type, "-e/--maxbytes");
  if (c.minBytes == 0) throwInvalid("-b/--minbytes 0: the sweep starts at 1 element or more");
  if (c.minBytes > c.maxBytes) {
    throwInvalid("-b/--minbytes " + std::to_string(c.minBytes) + " is larger than -e/--maxbytes " +
                 std::to_string(c.maxBytes));
  }
  if (c.stepFactor < 2) throwInvalid("-f/--stepfactor " + std::to_string(c.stepFactor) + ": must be >= 2");
  if (c.iterations < 1) throwInvalid("-n/--iters " + std::to_string(c.iterations) + ": must be >= 1");
  if (c.warmup < 0) throwInvalid("-w/--warmup_iters " + std::to_string(c.warmup) + ": must be >= 0");
  exec::validate(c.collective.exec);
  // The schedule must build and verify (for "auto", whatever it would choose for one element).
  schedule::buildSchedule(schedule::Collective::AllReduce, c.ranks,
                          model::chooseAlgorithm(c.collective.algorithm, schedule::Collective::AllReduce,
                                                 c.ranks, 1, c.type, c.collective.autoModel));
  // Two buffers of maxBytes per rank, plus scratch; refuse what cannot fit rather than swap or die.
  const std::uint64_t needed = checkedMultiply(checkedMultiply(c.maxBytes, 2, "buffer size"),
                                               static_cast<std::uint64_t>(c.ranks), "buffer size x p");
  const std::uint64_t available = physicalMemoryBytes() / 10 * 8;
  if (needed > available) {
    throwInvalid("-e/--maxbytes " + std::to_string(c.maxBytes) + " with p = " + std::to_string(c.ranks) +
                 " needs " + std::to_string(needed >> 20) + " MiB of buffers; this machine allows " +
                 std::to_string(available >> 20) + " MiB (80% of its memory)");
  }
}

std::vector<std::uint64_t> sweepSizes(const BenchConfig& c) {
  return geometricSizes(c.minBytes, c.maxBytes, c.stepFactor);
}

void runBench(const BenchConfig& config, const std::function<void(const BenchRow&)>& onRow) {
  validate(config);  // before any thread starts, so that bad options fail once, cleanly
  const std::vector<std::uint64_t> sizes = sweepSizes(config);
  Sweep sweep(config.ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < config.ranks; ++r) {
    threads.emplace_back([&, r] {
      try {
        runRank(config, sizes, sweep, r, onRow);
      } catch (const std::exception& e) {
        {
          std::lock_guard lock(sweep.errorMutex);
          if (!sweep.error) sweep.error = std::current_exception();
        }
        sweep.world.abort(std::string("rank ") + std::to_string(r) + " failed: " + e.what());
        // Peers may be parked in the barrier rather than the transport; leave it for good.
        sweep.barrier.arrive_and_drop();
      }
    });
  }
  for (auto& t : threads) t.join();
  if (sweep.error) std::rethrow_exception(sweep.error);
}

}  // namespace ringlab::cli
