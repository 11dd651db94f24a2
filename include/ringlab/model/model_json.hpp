#pragma once
// The JSON documents of `ringlab model --json`: the algorithms at one size, the size sweep with
// its crossovers, and the ring's terms as p grows.
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/model/sweep.hpp"

namespace ringlab::model {

// The closed forms price a machine without a topology; every prediction says so.
inline constexpr const char* kNoTopology =
    "none: uniform links, every pair of ranks alike (ringlab sim prices a topology)";
inline constexpr const char* kNoPlacement = "none";

// costJson's fields, the algorithm, topology and placement, and the busiest rank's bytes under
// the send and send+recv conventions (link-hop null: it needs a topology).
nlohmann::json predictionJson(const Prediction& prediction);

// One size: an array of predictionJson, each with "fastest": true for the row's fastest.
nlohmann::json sizeJson(const SizeRow& row);

// {"rows": [{"size_bytes", "fastest", "algorithms": [predictionJson]}], "crossovers"}.
nlohmann::json sweepJson(const SizeSweep& sweep);

// An array of {"p", "steps", "startup_us", "bandwidth_us", "time_us", "limit_2n_beta_us"}, the
// last being ringBandwidthLimit_s in microseconds.
nlohmann::json ranksJson(const std::vector<RanksRow>& rows, double limit_s);

}  // namespace ringlab::model
