#include "ringlab/schedule/multi_ring.hpp"

#include <cstdint>
#include <numeric>
#include <string>

#include "ringlab/core/error.hpp"
#include "ringlab/schedule/ring.hpp"

namespace ringlab::schedule {
namespace {

void checkChannels(int channels) {
  if (channels < 1 || channels > kMaxChannels) {
    throwInvalid("multi_ring with " + std::to_string(channels) + " channels: must be 1.." +
                 std::to_string(kMaxChannels));
  }
}

// The first `wanted` distinct rings of the derivation rule, in channel order (fewer when p has
// fewer). Only those: all of them are O(p^2) ranks, 4 GiB at p = 32768.
std::vector<RingOrder> derivedRings(const RingOrder& base, int wanted) {
  const int p = base.size();
  std::vector<RingOrder> rings{base, base.reversed()};
  for (int a = 2; 2 * a < p && static_cast<int>(rings.size()) < wanted; ++a) {
    if (std::gcd(a, p) != 1) continue;
    rings.push_back(base.strided(a));
    rings.push_back(rings.back().reversed());
  }
  return rings;
}

}  // namespace

std::vector<RingOrder> multiRingOrders(int ranks, int channels,
                                       const std::vector<std::vector<int>>& explicitOrders,
                                       const std::vector<int>& base) {
  checkChannels(channels);
  std::vector<RingOrder> orders;
  if (!explicitOrders.empty()) {
    if (static_cast<int>(explicitOrders.size()) != channels) {
      throwInvalid("multi_ring with " + std::to_string(channels) + " channels was given " +
                   std::to_string(explicitOrders.size()) +
                   " channel orders: give one per channel, or none to derive them");
    }
    for (const std::vector<int>& order : explicitOrders)
      orders.push_back(RingOrder::fromList(order, ranks));
    return orders;
  }
  const std::vector<RingOrder> rings = derivedRings(
      base.empty() ? RingOrder::identity(ranks) : RingOrder::fromList(base, ranks), channels);
  for (int c = 0; c < channels; ++c) orders.push_back(rings[c % rings.size()]);
  return orders;
}

Schedule multiRingAllReduce(const std::vector<RingOrder>& channels, int offset) {
  checkChannels(static_cast<int>(channels.size()));
  const int p = channels.front().size();
  Schedule s;
  s.algorithm = "multi_ring";
  s.ranks = p;
  s.blocks = static_cast<std::uint32_t>(channels.size() * p);
  // Every channel's reduce-scatter joins steps 0..p-2 and its allgather steps p-1..2p-3.
  for (std::size_t c = 0; c < channels.size(); ++c) {
    if (channels[c].size() != p) {
      throwInvalid("multi_ring channel " + std::to_string(c) + " orders " +
                   std::to_string(channels[c].size()) + " ranks, channel 0 orders " +
                   std::to_string(p) + ": every channel must order the same p ranks");
    }
    RingSlice slice;
    slice.firstBlock = static_cast<std::uint32_t>(c * p);
    addRingReduceScatter(s, channels[c], offset, slice, 0);
  }
  for (std::size_t c = 0; c < channels.size(); ++c) {
    RingSlice slice;
    slice.firstBlock = static_cast<std::uint32_t>(c * p);
    addRingAllGather(s, channels[c], offset, slice, static_cast<std::size_t>(p - 1));
  }
  return s;
}

}  // namespace ringlab::schedule
