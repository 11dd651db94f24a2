#include "plan/cost_grid.hpp"

#include <algorithm>

namespace ringlab::plan::detail {

CostGrid::CostGrid(const std::function<double(std::uint64_t)>& cost, std::uint64_t granule,
                   std::uint64_t smallest, std::uint64_t largest, std::uint64_t maxSpacing) {
  const std::uint64_t floorSpacing =
      std::max<std::uint64_t>(granule, (largest - smallest) / kMaxPoints / granule * granule);
  const std::uint64_t cap = std::max(floorSpacing, maxSpacing / granule * granule);
  for (std::uint64_t g = smallest;;) {
    bytes_.push_back(g);
    cost_.push_back(cost(g));
    if (g >= largest) break;
    const std::uint64_t relative = g / 1000 / granule * granule;
    g = std::min(largest, g + std::max(granule, std::min(relative, cap)));
  }
}

double CostGrid::lower(std::uint64_t bytes) const {
  const auto it = std::upper_bound(bytes_.begin(), bytes_.end(), bytes);
  return it == bytes_.begin() ? 0.0 : cost_[static_cast<std::size_t>(it - bytes_.begin()) - 1];
}

double CostGrid::upper(std::uint64_t bytes) const {
  const auto it = std::lower_bound(bytes_.begin(), bytes_.end(), bytes);
  return it == bytes_.end() ? cost_.back() : cost_[static_cast<std::size_t>(it - bytes_.begin())];
}

}  // namespace ringlab::plan::detail
