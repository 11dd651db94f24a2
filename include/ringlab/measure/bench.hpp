#pragma once
// The AllReduce measurement over a size sweep, one rank's part of it, over any Communicator: the
// ranks may be threads of this process (inproc) or processes (shm, tcp, mpi). Buffers are
// allocated and touched once for the largest size; then for each size: warm-up, timed
// iterations, and a checked run, out of place and in place. Barriers and the slowest rank's
// times travel through the communicator itself, so the method is the same on every transport.
//
// Method (the same for ringlab and for the peers in bench/peers): every iteration is timed on
// every rank; an iteration's time is the maximum over ranks; the median over iterations is
// reported, with min, max and mean beside it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ringlab/communicator.hpp"
#include "ringlab/core/progress.hpp"
#include "ringlab/measure/record.hpp"
#include "ringlab/model/profile.hpp"

namespace ringlab::measure {

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
  bool keepSamples = false;  // per-iteration times in each Timing (and so in the record's JSON)
  CollectiveOptions collective;
  // A profile: each row carries the model's time for the algorithm that ran it.
  std::optional<model::Profile> profile;
  PeerAllreduce peer;  // optional
  std::string peerLibrary;
  // Called on rank 0 as each size starts (stage: the size) and as it ends (units: sizes).
  ProgressCallback progress;
};

// Throws InvalidArgument naming the bad field (sizes not multiples of the datatype, min > max,
// factor < 2, iterations < 1, buffers larger than this machine's memory, ...).
void validate(const BenchConfig& config);

// The sizes of the sweep: min, min*f, ... up to max.
std::vector<std::uint64_t> sweepSizes(const BenchConfig& config);

// The record's fields that the configuration decides (segment, iterations, warm-up, and in `run`
// the algorithm, p, dtype and op); no rows yet. `info` brings version, host, date and where the
// ranks run.
RunRecord startRecord(const BenchConfig& config, RunInfo info);

// One rank's sweep; every rank of `comm` calls it. `onRow` is called on rank 0 only, once per
// size, in order, as soon as the row is measured; the row names the algorithm that ran it.
using RowCallback = std::function<void(const RecordRow&)>;
void runBenchRank(const BenchConfig& config, Communicator& comm, const RowCallback& onRow);

// All config.ranks ranks as threads of this process over the in-process transport.
void runBenchThreads(const BenchConfig& config, const RowCallback& onRow);

}  // namespace ringlab::measure
