#include "ringlab/measure/tune.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/measure/bench.hpp"
#include "ringlab/model/predict.hpp"

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
    c.collective.algorithm.name = name;
    configs.push_back(c);
  }
  return configs;
}

}  // namespace

// tune's default candidates: the registry's (model/registry.hpp), the ones `auto` chooses among.
std::vector<std::string> tuneCandidates() {
  return model::candidateAlgorithms();
}

void validate(const TuneConfig& t) {
  if (t.algorithms.empty()) throwInvalid("--algos: name at least one algorithm");
  if (t.rounds < 1) throwInvalid("--rounds " + std::to_string(t.rounds) + ": must be >= 1");
  for (const BenchConfig& c : benchConfigs(t)) validate(c);
}

model::DecisionTable tune(const TuneConfig& t, const RunInfo& info,
                          const ProgressCallback& progress) {
  validate(t);
  std::vector<BenchConfig> configs = benchConfigs(t);
  model::DecisionTable table;
  table.ranks = t.ranks;
  table.transport = "inproc";
  table.dtype = dataTypeName(t.type);
  table.host = info.host;
  table.ringlabVersion = info.version;
  table.date = info.date;
  for (std::uint64_t bytes : sweepSizes(configs.front())) table.measured.push_back({bytes, {}});

  // Rounds interleave the algorithms (A B C D A B C D ...) so a core slowed for a while hurts all
  // alike; each size keeps its best time over the rounds (noise only ever adds time).
  const std::uint64_t sizes = table.measured.size();
  const std::uint64_t total = static_cast<std::uint64_t>(t.rounds) * configs.size() * sizes;
  std::uint64_t before = 0;  // sizes measured in earlier runs
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
      runBenchThreads(c, [&](const RecordRow& row) {
        if (row.outOfPlace->wrong.value_or(0) != 0) {
          throw Error(ErrorCode::Internal,
                      fmt::format("{} gave {} wrong elements at {} bytes", row.algorithm,
                                  *row.outOfPlace->wrong, row.bytes));
        }
        auto& times = table.measured[i++].timeUs;
        const std::string& name = c.collective.algorithm.name;
        const double us = row.outOfPlace->timeUs;
        times[name] = times.count(name) ? std::min(times[name], us) : us;
      });
      before += sizes;
    }
  }
  return table;
}

}  // namespace ringlab::measure
