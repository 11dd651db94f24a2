#pragma once
// Tuning: every candidate algorithm measured over a size sweep on the transport at hand, into the
// decision table that `--algo auto` with a measured table uses. The rounds interleave the
// algorithms, and a size leaves the default only for an algorithm ahead beyond the noise
// (tune_decision.hpp).
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/communicator.hpp"
#include "ringlab/core/dtype.hpp"
#include "ringlab/core/progress.hpp"
#include "ringlab/core/reduce_op.hpp"
#include "ringlab/job/transports.hpp"
#include "ringlab/measure/measure_labels.hpp"
#include "ringlab/model/decision_table.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/record/tune_decision.hpp"

namespace ringlab::measure {

// The algorithms tune measures unless told otherwise.
std::vector<std::string> tuneCandidates();

struct TuneConfig {
  // tune(): whose world of threads the ranks run in (a name in the transport table).
  std::string transport = job::defaultTransport();
  int ranks = 4;
  std::uint64_t minBytes = 8, maxBytes = 64ull << 20, stepFactor = 4;
  std::uint64_t stepBytes = 0;  // > 0: a linear sweep instead of stepFactor
  DataType type = DataType::Float32;
  ReduceOp op = ReduceOp::Sum;
  int iterations = 5, warmup = 1;
  // Interleaved rounds over the algorithms (A B C A B C ...): each round gives one paired time per
  // algorithm and size, and the rounds give the interval a decision needs (at least 2).
  int rounds = 5;
  std::vector<std::string> algorithms = tuneCandidates();
  // Kept at every size where no other algorithm is ahead beyond the noise: ring, whose cost is
  // the best understood and which every p accepts. Must be one of `algorithms`.
  std::string defaultAlgorithm = "ring";
  std::chrono::milliseconds timeout{60'000};  // the deadline of each collective call
  MeasureLabels labels;                       // how validate() names the inputs
};

// Throws InvalidArgument for no algorithm, an unknown one, a default that is not among them,
// fewer than 2 rounds, or bad sweep settings (as BenchConfig's validate), before anything runs.
void validate(const TuneConfig& config);

// What tune's text states of `config` (report::tuneText).
record::TuneMethod tuneMethod(const TuneConfig& config);

// One rank's part of tuning over `comm`; every rank of comm calls it. Measures every algorithm
// at every size, out of place, every run checked (a wrong element is an Internal error naming the
// algorithm and size), in config.rounds interleaved rounds, then decides (tune_decision.hpp).
// The table keeps each algorithm's time per round (the median over iterations of the slowest
// rank's times) and their median over the rounds. Every rank returns it: each decides from rank
// 0's rounds, shared with all, and the ranks check that their decisions are the same (an Internal
// error where they are not: `auto` with tables that differ would hang the job).
// `info` stamps it (transport, placement, host, version, date). `progress`, on rank 0, hears
// each size of each algorithm in each round start and end (stage "ring 64 KiB (round 1/2)";
// units: sizes).
model::DecisionTable tuneRank(const TuneConfig& config, const record::RunInfo& info,
                              Communicator& comm, const ProgressCallback& progress = {});

// All config.ranks ranks as threads of this process, in config.transport's world of threads (the
// decision table's transport).
model::DecisionTable tune(const TuneConfig& config, const record::RunInfo& info,
                          const ProgressCallback& progress = {});

}  // namespace ringlab::measure
