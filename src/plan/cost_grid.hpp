#pragma once
// Bounds on a bucket's cost without pricing it: the cost priced once on a grid of sizes, and, for
// a size between two grid points, the cost at the lower point as a lower bound and at the upper
// point as an upper bound. Exact bounds given only that cost is nondecreasing in bytes.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace ringlab::plan::detail {

class CostGrid {
 public:
  // Grid from `smallest` to `largest` bytes in multiples of `granule`: relative spacing 1e-3,
  // absolute spacing at most `maxSpacing` bytes (so that the bounds are within cost's rise over
  // that many bytes), and no more than about kMaxPoints points (a coarser grid stays exact).
  CostGrid(const std::function<double(std::uint64_t)>& cost, std::uint64_t granule,
           std::uint64_t smallest, std::uint64_t largest, std::uint64_t maxSpacing);

  double lower(std::uint64_t bytes) const;  // <= cost(bytes) for bytes in [smallest, largest]
  double upper(std::uint64_t bytes) const;  // >= cost(bytes) for bytes in [smallest, largest]
  std::size_t points() const { return bytes_.size(); }

  static constexpr std::size_t kMaxPoints = 400'000;

 private:
  // Where to look: a search over the whole grid misses the cache at every level, and the planner
  // asks millions of times. Sizes are binned by octave and 64 steps within it (a key that grows
  // with the size); first_[k] is the first grid point whose key is >= k, so a size's neighbours
  // lie between first_[key] and first_[key + 1], a few dozen points at most.
  static std::size_t key(std::uint64_t bytes);
  std::pair<std::size_t, std::size_t> range(std::uint64_t bytes) const;

  std::vector<std::uint64_t> bytes_;
  std::vector<double> cost_;
  std::vector<std::uint32_t> first_;
};

}  // namespace ringlab::plan::detail
