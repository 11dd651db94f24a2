#pragma once
// The measurement loop behind `ringlab bench`: p ranks as threads over the in-process transport,
// buffers allocated and touched once for the largest size, then for each size of the sweep
// warm-up, timed iterations and a checked run, out of place and in place.
#include <cstdint>
#include <functional>
#include <vector>

#include "ringlab/communicator.hpp"

namespace ringlab::cli {

struct BenchConfig {
  int ranks = 4;
  std::uint64_t minBytes = 8;
  std::uint64_t maxBytes = 64ull << 20;
  std::uint64_t stepFactor = 2;
  DataType type = DataType::Float32;
  ReduceOp op = ReduceOp::Sum;
  int iterations = 20;
  int warmup = 2;
  bool check = true;
  CollectiveOptions collective;
};

struct BenchResult {
  double timeUs = 0;         // mean per iteration, slowest rank
  std::uint64_t wrong = 0;   // elements differing from the closed form, summed over ranks
};

struct BenchRow {
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
  BenchResult outOfPlace;
  BenchResult inPlace;
};

// Throws InvalidArgument naming the bad field (sizes not multiples of the datatype, min > max,
// factor < 2, iterations < 1, buffers larger than this machine's memory, ...).
void validate(const BenchConfig& config);

// The sizes of the sweep: min, min*f, ... up to max.
std::vector<std::uint64_t> sweepSizes(const BenchConfig& config);

// Runs the sweep; `onRow` is called once per size, in order, as soon as the row is measured.
void runBench(const BenchConfig& config, const std::function<void(const BenchRow&)>& onRow);

}  // namespace ringlab::cli
