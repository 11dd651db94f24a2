#pragma once
// The JSON documents of `ringlab model --json`: the algorithms at one size, the size sweep with
// its crossovers, and the ring's terms as p grows.
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/model/sweep.hpp"

namespace ringlab::model {

// The closed forms price a machine without a topology; every prediction says so.
inline constexpr const char* kNoTopology =
    "none: uniform links, every pair of ranks alike (ringlab sim prices a topology)";
inline constexpr const char* kNoPlacement = "none";

// costJson's fields, the algorithm, topology and placement, and where the volumes were counted
// the busiest rank's bytes under the send and send+recv conventions (link-hop null: it needs a
// topology).
nlohmann::json predictionJson(const Prediction& prediction);

// One size: an array of predictionJson, each with "fastest": true for the row's fastest.
nlohmann::json sizeJson(const SizeRow& row);

// The size sweep's one document, for `ringlab model --sweep --json`, the Python package's
// predict_sweep and the lab's /api/model/sizes (which adds its parameters): {"p", "dtype",
// "algorithms": [candidate names], "rows": [{"size_bytes", "fastest", "algorithms":
// [predictionJson]}], "crossovers"}.
nlohmann::json sweepJson(const SizeSweep& sweep, int p, DataType type);

// The ring's terms as p grows, one document for `ringlab model --vs-p --json`, predict_vs_p and
// the lab's /api/model/ranks (which adds its parameters): {"algorithm": "ring", "size_bytes",
// "dtype", "limit_2n_beta_us" (ringBandwidthLimit_s in microseconds), "rows": [{"p", "steps",
// "startup_us", "bandwidth_us", "time_us"}]}.
nlohmann::json ranksJson(const std::vector<RanksRow>& rows, std::uint64_t bytes, DataType type,
                         double limit_s);

}  // namespace ringlab::model
