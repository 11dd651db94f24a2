#include "ringlab/measure/tune.hpp"

#include <algorithm>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "ringlab/core/error.hpp"
#include "ringlab/job/transports.hpp"
#include "ringlab/measure/bench.hpp"
#include "ringlab/measure/rank_threads.hpp"
#include "ringlab/model/fit.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/record/tune_decision.hpp"

namespace ringlab::measure {
namespace {

std::vector<BenchConfig> benchConfigs(const TuneConfig& t) {
  std::vector<BenchConfig> configs;
  for (const std::string& name : t.algorithms) {
    BenchConfig c;
    c.ranks = t.ranks;
    c.minBytes = t.minBytes;
    c.maxBytes = t.maxBytes;
    c.stepFactor = t.stepFactor;
    c.stepBytes = t.stepBytes;
    c.types = {t.type};
    c.ops = {t.op};
    c.iterations = t.iterations;
    c.warmup = t.warmup;
    c.check = 1;
    c.inPlace = false;  // the decision compares out-of-place times only
    c.collective.algorithm.name = name;
    c.collective.exec.timeout = t.timeout;
    c.labels = t.labels;
    configs.push_back(c);
  }
  return configs;
}

// Rank 0's rounds onto every rank: an allreduce (sum) of rank 0's times and the other ranks' zeros,
// which adds nothing to them, so that every rank holds the same numbers to the last bit.
void shareRounds(model::DecisionTable& table, const std::vector<std::uint64_t>& sizes,
                 const TuneConfig& t, Communicator& comm, const CollectiveOptions& options) {
  std::vector<double> flat(sizes.size() * t.algorithms.size() * t.rounds, 0.0);
  const auto at = [&](std::size_t size, std::size_t algorithm, int round) -> double& {
    return flat[(size * t.algorithms.size() + algorithm) * t.rounds + round];
  };
  for (std::size_t i = 0; i < table.measured.size(); ++i)  // rank 0 only
    for (std::size_t a = 0; a < t.algorithms.size(); ++a)
      for (int r = 0; r < t.rounds; ++r)
        at(i, a, r) = table.measured[i].roundsUs.at(t.algorithms[a])[r];
  comm.allreduce(flat.data(), flat.data(), flat.size(), DataType::Float64, ReduceOp::Sum, options);
  table.measured.assign(sizes.size(), {});
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    table.measured[i].bytes = sizes[i];
    for (std::size_t a = 0; a < t.algorithms.size(); ++a)
      for (int r = 0; r < t.rounds; ++r)
        table.measured[i].roundsUs[t.algorithms[a]].push_back(at(i, a, r));
  }
}

// The decision's digest (FNV-1a over its JSON: times, choices, margins, rules; not the stamps of
// date and host, which may differ between ranks).
std::uint64_t decisionDigest(const model::DecisionTable& table) {
  const nlohmann::json j = model::toJson(table);
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : j.at("measured").dump() + j.at("rules").dump()) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

// Every rank must hold the same decision: `auto` with a table that ranks disagree on would run
// different algorithms on different ranks, and the job would hang or fail. Throws Internal where
// the digests differ.
void checkRanksAgree(const model::DecisionTable& table, Communicator& comm,
                     const CollectiveOptions& options) {
  std::uint64_t low = decisionDigest(table), high = low;
  comm.allreduce(&low, &low, 1, DataType::Uint64, ReduceOp::Min, options);
  comm.allreduce(&high, &high, 1, DataType::Uint64, ReduceOp::Max, options);
  if (low != high) {
    throw Error(ErrorCode::Internal,
                fmt::format("the {} ranks decided different tables from the same rounds (digests "
                            "{:016x} to {:016x}); the table is not written",
                            comm.size(), low, high));
  }
}

}  // namespace

// tune's default candidates: the registry's (model/registry.hpp), the ones `auto` chooses among.
std::vector<std::string> tuneCandidates() {
  return model::candidateAlgorithms();
}

void validate(const TuneConfig& t) {
  const MeasureLabels& l = t.labels;
  if (t.algorithms.empty()) throwInvalid(l.algorithms + ": name at least one algorithm");
  // A name twice would be measured twice and counted as its own challenger.
  for (auto it = t.algorithms.begin(); it != t.algorithms.end(); ++it) {
    if (std::find(std::next(it), t.algorithms.end(), *it) != t.algorithms.end()) {
      throwInvalid(l.algorithms + " " + fmt::format("{}", fmt::join(t.algorithms, ",")) + ": '" +
                   *it + "' is listed twice; name each algorithm once");
    }
  }
  if (t.rounds < 2) {
    throwInvalid(l.rounds + " " + std::to_string(t.rounds) +
                 ": must be >= 2 (a lead is told from noise by its interval over the rounds)");
  }
  if (std::find(t.algorithms.begin(), t.algorithms.end(), t.defaultAlgorithm) ==
      t.algorithms.end()) {
    throwInvalid(l.defaultAlgorithm + " " + t.defaultAlgorithm + " is not among " + l.algorithms +
                 " " + fmt::format("{}", fmt::join(t.algorithms, ",")) +
                 "; the default must be measured too");
  }
  for (const BenchConfig& c : benchConfigs(t)) validate(c);
}

model::DecisionTable tuneRank(const TuneConfig& t, const record::RunInfo& info, Communicator& comm,
                              const ProgressCallback& progress) {
  validate(t);
  std::vector<BenchConfig> configs = benchConfigs(t);
  model::DecisionTable table;
  table.ranks = t.ranks;
  table.transport = info.transport;
  table.placement = info.placement;
  table.dtype = dataTypeName(t.type);
  table.host = info.host;
  table.ringlabVersion = info.version;
  table.date = info.date;
  table.defaultAlgorithm = t.defaultAlgorithm;
  const std::vector<std::uint64_t> sizes = sweepSizes(configs.front());
  if (comm.rank() == 0) table.measured.resize(sizes.size());

  // Rounds interleave the algorithms (A B C D A B C D ...) so that a core slowed for a while
  // slows every algorithm of a round alike; the decision compares times within each round.
  const std::uint64_t total = static_cast<std::uint64_t>(t.rounds) * configs.size() * sizes.size();
  std::uint64_t before = 0;  // sizes measured in earlier runs
  RankBuffers buffers;       // one allocation for every sweep
  for (int round = 0; round < t.rounds; ++round) {
    for (BenchConfig& c : configs) {
      if (progress) {
        c.progress = [&, round](const Progress& p) {
          progress({fmt::format("{} {} (round {}/{})", c.collective.algorithm.name, p.stage,
                                round + 1, t.rounds),
                    before + p.done, total});
        };
      }
      std::size_t i = 0;
      const auto onRow = [&](const record::RecordRow& row) {  // rank 0 only
        if (row.outOfPlace->wrong.value_or(0) != 0) {
          throw Error(ErrorCode::Internal,
                      fmt::format("{} gave {} wrong elements at {} bytes", row.algorithm,
                                  *row.outOfPlace->wrong, row.bytes));
        }
        table.measured[i++].roundsUs[c.collective.algorithm.name].push_back(row.outOfPlace->timeUs);
      };
      runBenchRank(c, comm, onRow, buffers);
      before += sizes.size();
    }
  }
  // Every rank decides from rank 0's rounds (already the slowest rank's times), and the ranks
  // check that they agree.
  CollectiveOptions options;
  options.exec.timeout = t.timeout;
  shareRounds(table, sizes, t, comm, options);
  for (model::MeasuredSize& m : table.measured)
    for (const auto& [name, rounds] : m.roundsUs) m.timeUs[name] = model::median(rounds);
  record::decide(table);
  checkRanksAgree(table, comm, options);
  return table;
}

model::DecisionTable tune(const TuneConfig& t, const record::RunInfo& info,
                          const ProgressCallback& progress) {
  validate(t);  // before any thread starts, so that bad options fail once, cleanly
  record::RunInfo threads = info;
  threads.transport = t.transport;
  const std::unique_ptr<transport::ThreadWorld> world = job::threadWorld(t.transport, t.ranks);
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int r = 0; r < t.ranks; ++r)
    comms.push_back(std::make_unique<Communicator>(world->transport(r)));
  model::DecisionTable table;
  runRankThreads(*world, [&](int r) {
    model::DecisionTable mine =
        tuneRank(t, threads, *comms[r], r == 0 ? progress : ProgressCallback{});
    if (r == 0) table = std::move(mine);
  });
  return table;
}

record::TuneMethod tuneMethod(const TuneConfig& config) {
  return {config.algorithms, config.iterations, config.rounds};
}

}  // namespace ringlab::measure
