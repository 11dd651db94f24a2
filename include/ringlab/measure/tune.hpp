#pragma once
// Tuning: every candidate algorithm measured over a size sweep on the transport at hand, into the
// decision table that `--algo auto` with a measured table uses.
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/progress.hpp"
#include "ringlab/core/reduce_op.hpp"
#include "ringlab/measure/record.hpp"
#include "ringlab/model/decision_table.hpp"

namespace ringlab::measure {

// The algorithms tune measures unless told otherwise.
std::vector<std::string> tuneCandidates();

struct TuneConfig {
  int ranks = 4;
  std::uint64_t minBytes = 8, maxBytes = 64ull << 20, stepFactor = 4;
  std::uint64_t stepBytes = 0;  // > 0: a linear sweep instead of stepFactor
  DataType type = DataType::Float32;
  ReduceOp op = ReduceOp::Sum;
  int iterations = 10, warmup = 1;
  int rounds = 2;  // interleaved rounds over the algorithms; each size keeps its best
  std::vector<std::string> algorithms = tuneCandidates();
};

// Throws InvalidArgument for no algorithm, an unknown one, fewer than 1 round, or bad sweep
// settings (as BenchConfig's validate), before anything runs.
void validate(const TuneConfig& config);

// Measures every algorithm at every size, out of place, every run checked (a wrong element is an
// Internal error naming the algorithm and size), ranks as threads (transport inproc). The table's
// measured sizes hold each algorithm's time in microseconds: the median over iterations, best
// over the rounds. `info` stamps the table (host, version, date). `progress` hears each size of
// each algorithm in each round start and end (stage "ring 64 KiB (round 1/2)"; units: sizes).
model::DecisionTable tune(const TuneConfig& config, const RunInfo& info,
                          const ProgressCallback& progress = {});

}  // namespace ringlab::measure
