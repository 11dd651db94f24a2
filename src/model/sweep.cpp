#include "ringlab/model/sweep.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"

namespace ringlab::model {

SizeRow predictSize(int p, std::uint64_t count, DataType type, const ModelParams& m,
                    bool withVolume) {
  return {count, modelBytes(count, dataTypeSize(type)), fastestAlgorithm(p, count, type, m),
          predictAll(p, count, type, m, withVolume)};
}

SizeSweep sweepSizes(int p, std::uint64_t minCount, std::uint64_t maxCount, DataType type,
                     const ModelParams& m, bool withVolume) {
  if (minCount == 0 || minCount > maxCount) {
    throwInvalid("size sweep from " + std::to_string(minCount) + " to " + std::to_string(maxCount) +
                 " elements: need 0 < min <= max");
  }
  const std::uint64_t e = dataTypeSize(type);
  SizeSweep out;
  for (std::uint64_t count : geometricSizes(minCount, maxCount, 2)) {
    SizeRow row = predictSize(p, count, type, m, withVolume);
    if (!out.rows.empty() && row.fastest != out.rows.back().fastest) {
      const SizeRow& previous = out.rows.back();
      const std::uint64_t at = crossoverCount(p, previous.count, count, type, m, previous.fastest);
      out.crossovers.push_back({previous.fastest, fastestAlgorithm(p, at, type, m), at, at * e});
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

nlohmann::json toJson(const Crossover& c) {
  return {{"from", c.from}, {"to", c.to}, {"size_bytes", c.bytes}, {"count", c.count}};
}

nlohmann::json toJson(const std::vector<Crossover>& crossovers) {
  nlohmann::json out = nlohmann::json::array();
  for (const Crossover& c : crossovers) out.push_back(toJson(c));
  return out;
}

nlohmann::json costJson(const Cost& c) {
  return {{"steps", c.steps},
          {"time_us", c.total_s() * 1e6},
          {"startup_us", c.startup_s * 1e6},
          {"bandwidth_us", c.bandwidth_s * 1e6},
          {"reduce_us", c.reduce_s * 1e6}};
}

std::vector<RanksRow> ringVersusRanks(const std::vector<int>& ranks, std::uint64_t count,
                                      DataType type, const ModelParams& m) {
  schedule::AlgorithmSpec ring;
  ring.name = schedule::kRing;
  std::vector<RanksRow> out;
  for (int p : ranks) out.push_back({p, predictAllReduce(ring, p, count, type, m)});
  return out;
}

double ringBandwidthLimit_s(std::uint64_t bytes, const ModelParams& m) {
  return 2.0 * static_cast<double>(bytes) * m.link.beta_s_per_byte;
}

}  // namespace ringlab::model
