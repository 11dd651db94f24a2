#pragma once
// The text of `ringlab model`: the algorithms at one size, the size sweep with its crossovers, and
// the ring's terms as p grows. Each starts with what it predicts with (the parameters and where
// they came from, the cost formula, no topology); every line ends in a newline.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/model/sweep.hpp"

namespace ringlab::report {

// `source` says where the profile's parameters came from (io::ResolvedModel's source).
struct ModelBasis {
  model::Profile profile;
  std::string source;
};

// One row per algorithm: steps, the busiest rank's send and send+recv bytes, the three terms and
// the time, the fastest marked "<- fastest".
std::string modelSizeText(const ModelBasis& basis, int p, DataType type, const model::SizeRow& row);

// One row per size with each algorithm's time and the fastest, then the exact crossovers. The
// first line starts with `title`, the front end's name for what it shows (the CLI's command line).
std::string modelSweepText(const ModelBasis& basis, int p, DataType type,
                           const model::SizeSweep& sweep, std::string_view title = "model sweep");

// The ring at `bytes` per p: steps, startup and bandwidth terms, the bandwidth term over its limit
// 2 n beta (`limit_s`, model::ringBandwidthLimit_s), and the time; `title` as for the sweep.
std::string modelRanksText(const ModelBasis& basis, std::uint64_t bytes,
                           const std::vector<model::RanksRow>& rows, double limit_s,
                           std::string_view title = "model over p");

}  // namespace ringlab::report
