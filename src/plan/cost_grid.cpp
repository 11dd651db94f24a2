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
  constexpr std::size_t kKeys = 64 * 64 + 1;  // key() of any 64-bit size is below this
  first_.assign(kKeys + 1, static_cast<std::uint32_t>(bytes_.size()));
  std::size_t k = 0;
  for (std::size_t i = 0; i < bytes_.size(); ++i) {
    for (const std::size_t ki = key(bytes_[i]); k <= ki; ++k) first_[k] = static_cast<std::uint32_t>(i);
  }
}

std::size_t CostGrid::key(std::uint64_t bytes) {
  if (bytes == 0) return 0;
  const int octave = 63 - __builtin_clzll(bytes);
  const std::uint64_t step = octave >= 6 ? (bytes >> (octave - 6)) & 63 : (bytes << (6 - octave)) & 63;
  return 1 + static_cast<std::size_t>(octave) * 64 + step;
}

std::pair<std::size_t, std::size_t> CostGrid::range(std::uint64_t bytes) const {
  const std::size_t k = key(bytes);
  return {first_[k], first_[k + 1]};
}

double CostGrid::lower(std::uint64_t bytes) const {
  const auto [from, to] = range(bytes);
  const auto it = std::upper_bound(bytes_.begin() + from, bytes_.begin() + to, bytes);
  return it == bytes_.begin() ? 0.0 : cost_[static_cast<std::size_t>(it - bytes_.begin()) - 1];
}

double CostGrid::upper(std::uint64_t bytes) const {
  const auto [from, to] = range(bytes);
  const auto it = std::lower_bound(bytes_.begin() + from, bytes_.begin() + to, bytes);
  return it == bytes_.end() ? cost_.back() : cost_[static_cast<std::size_t>(it - bytes_.begin())];
}

}  // namespace ringlab::plan::detail
