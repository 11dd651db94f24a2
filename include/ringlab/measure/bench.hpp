#pragma once
// The AllReduce measurement over a size sweep, one rank's part of it, over any Communicator: the
// ranks may be threads of this process (inproc) or processes (shm, tcp, mpi). Buffers are
// allocated and touched once for the largest size; then for each size: warm-up, timed
// iterations, and a checked run, out of place and in place. Barriers and the slowest rank's
// times travel through the communicator itself, so the method is the same on every transport.
//
// Method (the same for ringlab and for the peers in bench/peers): every iteration is timed on
// every rank; an iteration's time is reduced over ranks as nccl-tests' -a says (the maximum by
// default); the median over iterations is reported, with min, max and mean beside it. nccl-tests
// instead divides one timed loop by its iterations (a mean) and averages that over ranks (-a 1).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ringlab/communicator.hpp"
#include "ringlab/core/progress.hpp"
#include "ringlab/job/transports.hpp"
#include "ringlab/measure/measure_labels.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/record/bench_settings.hpp"
#include "ringlab/record/record.hpp"

namespace ringlab::measure {

// Another library's allreduce on the same buffers (e.g. MPI_Allreduce), timed beside ringlab's.
using PeerAllreduce = std::function<void(const void* send, void* recv, std::uint64_t count,
                                         DataType type, ReduceOp op)>;

struct BenchConfig {
  // runBenchThreads: whose world of threads the ranks run in (a name in the transport table).
  std::string transport = job::defaultTransport();
  int ranks = 4;
  std::uint64_t minBytes = 8;
  std::uint64_t maxBytes = 64ull << 20;
  std::uint64_t stepFactor = 2;
  std::uint64_t stepBytes = 0;  // > 0: a linear sweep (nccl-tests -i) instead of stepFactor
  // Every datatype, and for each every op, in this order, all sizes each (nccl-tests -d/-o all).
  std::vector<DataType> types = {DataType::Float32};
  std::vector<ReduceOp> ops = {ReduceOp::Sum};
  int iterations = 20;
  double secondsPerSize = 0;  // > 0: iterate for about this long per size instead of `iterations`
  int warmup = 2;
  // Checked runs per size (nccl-tests -c): each compares every element with the closed form; the
  // first with a wrong element ends the checking. 0: unchecked (#wrong N/A).
  int check = 1;
  bool inPlace = true;  // also time in place, as nccl-tests does (tune needs out of place only)
  record::OverRanks overRanks =
      record::OverRanks::Max;  // how an iteration's time is reduced over ranks (-a)
  // Per-iteration times in each Timing (and so in the record's JSON), and each rank's while
  // p x iterations <= kMaxRankSamples.
  bool keepSamples = false;
  CollectiveOptions collective;
  // A profile: each row carries the model's time for the algorithm that ran it.
  std::optional<model::Profile> profile;
  PeerAllreduce peer;  // optional
  std::string peerLibrary;
  // Called on rank 0 as each size starts (stage: the size) and as it ends (units: sizes).
  ProgressCallback progress;
  MeasureLabels labels;  // how validate() names the inputs
};

inline constexpr std::uint64_t kMaxRankSamples = 1 << 20;

// Throws InvalidArgument naming the bad input by config.labels (sizes not multiples of the
// datatype, min > max, factor < 2, iterations < 1, buffers larger than this machine's memory, ...).
void validate(const BenchConfig& config);

// The sizes of the sweep: min, min*f, ... (or min, min+step, ...) up to max.
std::vector<std::uint64_t> sweepSizes(const BenchConfig& config);

// The record's fields that the configuration decides (segment, iterations, warm-up, the
// reduction over ranks, and in `run` the algorithm, p, dtypes and ops); no rows yet. `info` brings
// version, host, date and where the ranks run.
record::RunRecord startRecord(const BenchConfig& config, record::RunInfo info);

// One rank's sweep; every rank of `comm` calls it. `onRow` is called on rank 0 only, once per
// datatype, op and size, in that nesting, as soon as the row is measured; the row names its
// datatype and op and the algorithm that ran it.
using RowCallback = std::function<void(const record::RecordRow&)>;
void runBenchRank(const BenchConfig& config, Communicator& comm, const RowCallback& onRow);
// The same, on a rank's buffers that outlive the sweep: allocated and first touched by the first
// sweep that needs them, reused by the next (tune runs one sweep per algorithm and round, and a
// first touch costs more than a small allreduce).
struct RankBuffers {
  std::byte* send = nullptr;  // from the transport's shared memory where it has one (shm)
  std::byte* recv = nullptr;
  std::uint64_t bytes = 0;
  std::vector<std::byte> sendStorage, recvStorage;  // where the transport has no shared memory
};
void runBenchRank(const BenchConfig& config, Communicator& comm, const RowCallback& onRow,
                  RankBuffers& buffers);

// What the run's preamble states of `config` (report::benchPreamble).
record::BenchSettings benchSettings(const BenchConfig& config);

// All config.ranks ranks as threads of this process, in config.transport's world of threads.
void runBenchThreads(const BenchConfig& config, const RowCallback& onRow);

}  // namespace ringlab::measure
