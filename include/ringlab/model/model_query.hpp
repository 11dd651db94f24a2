#pragma once
// One question to the alpha-beta-gamma model as every front end asks it: `ringlab model` (one
// size, --sweep, --vs-p), the Python package's predict, predict_sweep and predict_vs_p, and the
// lab's model panels. The front end parses its own inputs into a ModelQuery (its labels name them
// in errors); the answer is typed, for a front end's table, and one JSON document
// (model_json.hpp) for all of them.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/core/dtype.hpp"
#include "ringlab/model/params.hpp"
#include "ringlab/model/sweep.hpp"

namespace ringlab::model {

struct ModelQueryLabels {
  std::string size = "the size";
  std::string minBytes = "the smallest size", maxBytes = "the largest size";
};

struct ModelQuery {
  enum class Kind { Size, Sweep, VersusRanks };
  Kind kind = Kind::Size;
  int ranks = 8;              // Size and Sweep: p
  std::vector<int> rankList;  // VersusRanks: the p the ring is priced at
  DataType type = DataType::Float32;
  std::uint64_t bytes = 0;                   // Size and VersusRanks: per rank
  std::uint64_t minBytes = 0, maxBytes = 0;  // Sweep: x2 from the one to the other
  ModelParams params;
  bool withVolume = true;  // count every algorithm's volume (predictAll's withVolume)
  ModelQueryLabels labels;
};

struct ModelAnswer {
  SizeRow size;                 // Size
  SizeSweep sweep;              // Sweep
  std::vector<RanksRow> ranks;  // VersusRanks
  double limit_s = 0;           // VersusRanks: 2 n beta (ringBandwidthLimit_s)
  nlohmann::json json;          // sizeJson, sweepJson or ranksJson of the answer
};

// Throws InvalidArgument naming the input by its label: a size that is not whole elements of the
// type, a sweep whose smallest size is 0 or above its largest.
ModelAnswer answerModelQuery(const ModelQuery& query);

}  // namespace ringlab::model
