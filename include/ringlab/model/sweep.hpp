#pragma once
// The model over a range: every candidate algorithm over a size sweep with the exact crossovers
// between them, and the ring's terms as p grows. `ringlab model --sweep` / `--vs-p` and the lab's
// /api/model/sizes and /api/model/ranks show these; the JSON of a crossover is the same for both.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/model/predict.hpp"

namespace ringlab::model {

struct SizeRow {
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  std::string fastest;
  std::vector<Prediction> predictions;  // predictAll's, in candidateAlgorithms() order
};

// Where the fastest algorithm changes: `to` is fastest from `count` elements up.
struct Crossover {
  std::string from, to;
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
};

// One size: predictAll's predictions (volumes as `withVolume`) and the fastest of them.
SizeRow predictSize(int p, std::uint64_t count, DataType type, const ModelParams& m,
                    bool withVolume);

struct SizeSweep {
  std::vector<SizeRow> rows;
  std::vector<Crossover> crossovers;  // exact, by bisection between the rows that bracket them
};

// Counts minCount, 2 minCount, 4 minCount, ... up to maxCount (core/units.hpp geometricSizes);
// volumes as predictAll's `withVolume`. Throws InvalidArgument unless 0 < minCount <= maxCount.
SizeSweep sweepSizes(int p, std::uint64_t minCount, std::uint64_t maxCount, DataType type,
                     const ModelParams& m, bool withVolume);

// {"from", "to", "size_bytes", "count"}.
nlohmann::json toJson(const Crossover& crossover);
nlohmann::json toJson(const std::vector<Crossover>& crossovers);
// {"steps", "time_us", "startup_us", "bandwidth_us", "reduce_us"}.
nlohmann::json costJson(const Cost& cost);

struct RanksRow {
  int p = 0;
  Cost cost;
};

// The ring AllReduce of `count` elements at each p of `ranks`.
std::vector<RanksRow> ringVersusRanks(const std::vector<int>& ranks, std::uint64_t count,
                                      DataType type, const ModelParams& m);
// 2 n beta: what the ring's bandwidth term 2(p-1)/p n beta approaches as p grows (never shrinks).
double ringBandwidthLimit_s(std::uint64_t bytes, const ModelParams& m);

}  // namespace ringlab::model
