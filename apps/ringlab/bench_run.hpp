#pragma once
// The measurement loop behind `ringlab bench`, one rank's part of it, over any Communicator: the
// ranks may be threads of this process (inproc) or processes (shm, tcp, mpi). Buffers are
// allocated and touched once for the largest size; then for each size: warm-up, timed
// iterations, and a checked run, out of place and in place. Barriers and the slowest rank's
// times travel through the communicator itself, so the method is the same on every transport.
//
// Method (the same for ringlab and for the peers in bench/peers): every iteration is timed on
// every rank; an iteration's time is the maximum over ranks; the median over iterations is
// reported.
#include <cstdint>
#include <functional>
#include <vector>

#include "ringlab/communicator.hpp"

namespace ringlab::cli {

// Another library's allreduce on the same buffers (e.g. MPI_Allreduce), timed beside ringlab's.
using PeerAllreduce = std::function<void(const void* send, void* recv, std::uint64_t count,
                                         DataType type, ReduceOp op)>;

struct BenchConfig {
  int ranks = 4;
  std::uint64_t minBytes = 8;
  std::uint64_t maxBytes = 64ull << 20;
  std::uint64_t stepFactor = 2;
  DataType type = DataType::Float32;
  ReduceOp op = ReduceOp::Sum;
  int iterations = 20;
  double secondsPerSize = 0;  // > 0: iterate for about this long per size instead of `iterations`
  int warmup = 2;
  bool check = true;
  CollectiveOptions collective;
  PeerAllreduce peer;  // optional
};

struct BenchResult {
  double timeUs = 0;  // median over iterations of the slowest rank's time
  int iterations = 0;
  std::uint64_t wrong = 0;  // elements differing from the closed form, summed over ranks
};

struct BenchRow {
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
  BenchResult outOfPlace;
  BenchResult inPlace;
  BenchResult peer;  // out of place, when a peer is configured
};

// Throws InvalidArgument naming the bad field (sizes not multiples of the datatype, min > max,
// factor < 2, iterations < 1, buffers larger than this machine's memory, ...).
void validate(const BenchConfig& config);

// The sizes of the sweep: min, min*f, ... up to max.
std::vector<std::uint64_t> sweepSizes(const BenchConfig& config);

// One rank's sweep; every rank of `comm` calls it. `onRow` is called on rank 0 only, once per
// size, in order, as soon as the row is measured.
void runBenchRank(const BenchConfig& config, Communicator& comm,
                  const std::function<void(const BenchRow&)>& onRow);

// All config.ranks ranks as threads of this process over the in-process transport.
void runBenchThreads(const BenchConfig& config, const std::function<void(const BenchRow&)>& onRow);

}  // namespace ringlab::cli
