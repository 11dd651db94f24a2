#include "ringlab/schedule/hierarchical.hpp"

#include <cstdint>
#include <string>

#include "ringlab/core/error.hpp"
#include "ringlab/schedule/ring.hpp"

namespace ringlab::schedule {
namespace {

void checkLayout(int ranks, int ranksPerNode) {
  if (ranks < 1)
    throwInvalid("p = " + std::to_string(ranks) + ": the number of ranks must be >= 1");
  if (ranksPerNode < 1 || ranks % ranksPerNode != 0) {
    std::string divisors;
    for (int d = 1; d <= ranks; ++d) {
      if (ranks % d == 0) divisors += (divisors.empty() ? "" : ", ") + std::to_string(d);
    }
    throwInvalid("hierarchical with " + std::to_string(ranksPerNode) + " ranks per node and p = " +
                 std::to_string(ranks) + ": ranks per node must divide p; valid are " + divisors);
  }
}

// Ranks first, first + stride, ... (n of them): one node's ranks, or one local index's.
std::vector<int> rankRun(int first, int stride, int n) {
  std::vector<int> ranks(n);
  for (int j = 0; j < n; ++j) ranks[j] = first + j * stride;
  return ranks;
}

}  // namespace

Schedule hierarchicalAllReduce(int ranks, int ranksPerNode) {
  checkLayout(ranks, ranksPerNode);
  const int l = ranksPerNode;
  const int m = ranks / l;
  Schedule s;
  s.algorithm = "hierarchical";
  s.ranks = ranks;
  s.blocks = static_cast<std::uint32_t>(ranks);
  const RingOrder nodeRing = RingOrder::identity(l);
  const RingOrder crossRing = RingOrder::identity(m);
  const auto intraNode = [&](int node) {
    return RingSlice{rankRun(node * l, 1, l), 0, static_cast<std::uint32_t>(m), "intra-node "};
  };
  const auto interNode = [&](int local) {
    return RingSlice{rankRun(local, l, m), static_cast<std::uint32_t>(local * m), 1, "inter-node "};
  };
  const std::size_t crossStart = static_cast<std::size_t>(l - 1);
  const std::size_t gatherStart = crossStart + 2 * static_cast<std::size_t>(m - 1);
  for (int node = 0; node < m; ++node) addRingReduceScatter(s, nodeRing, 0, intraNode(node), 0);
  for (int local = 0; local < l; ++local) {
    const std::size_t next = addRingReduceScatter(s, crossRing, 0, interNode(local), crossStart);
    addRingAllGather(s, crossRing, 0, interNode(local), next);
  }
  for (int node = 0; node < m; ++node)
    addRingAllGather(s, nodeRing, 0, intraNode(node), gatherStart);
  return s;
}

}  // namespace ringlab::schedule
