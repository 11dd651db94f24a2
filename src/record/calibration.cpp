#include "ringlab/record/calibration.hpp"

#include <algorithm>
#include <map>

namespace ringlab::record {

std::vector<SizeSummary> summarize(const FittedSizes& f) {
  std::map<std::uint64_t, std::vector<double>> bySize;
  for (std::size_t i = 0; i < f.sizes.size(); ++i) bySize[f.sizes[i]].push_back(f.seconds[i]);
  std::vector<SizeSummary> out;
  for (const auto& [bytes, times] : bySize) {
    const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
    const double m = model::median(times);
    out.push_back({bytes, m, m > 0 ? (*hi - *lo) / m : 0});
  }
  return out;
}

}  // namespace ringlab::record
