#include "ringlab/schedule/ring_shape.hpp"

#include "ringlab/core/partition.hpp"
#include "ringlab/schedule/multi_ring.hpp"

namespace ringlab::schedule {

std::uint64_t ringPhaseSteps(int ranks) {
  return ranks > 1 ? static_cast<std::uint64_t>(ranks - 1) : 0;
}

std::uint64_t ringAllReduceSteps(int ranks) {
  return 2 * ringPhaseSteps(ranks);
}

std::uint64_t ringChunks(int ranks, int channels) {
  return static_cast<std::uint64_t>(channels) * static_cast<std::uint64_t>(ranks);
}

std::uint64_t ringChunkElements(std::uint64_t count, std::uint64_t chunks, std::uint64_t index) {
  return partitionChunk(count, static_cast<std::uint32_t>(chunks),
                        static_cast<std::uint32_t>(index))
      .count;
}

std::uint64_t ringLargestChunkElements(std::uint64_t count, std::uint64_t chunks) {
  return count / chunks + (count % chunks != 0 ? 1 : 0);  // no overflow near 2^64
}

std::vector<RingOrder> ringOrdersOf(const AlgorithmSpec& spec, int ranks) {
  if (spec.name == kRing) return {singleRingOrder(spec, ranks)};
  if (spec.name == kMultiRing)
    return multiRingOrders(ranks, spec.channels, spec.channelOrders, spec.ringOrder);
  return {};
}

RingOrder singleRingOrder(const AlgorithmSpec& spec, int ranks) {
  return spec.ringOrder.empty() ? RingOrder::identity(ranks)
                                : RingOrder::fromList(spec.ringOrder, ranks);
}

std::string ringOrderText(const AlgorithmSpec& spec, int ranks) {
  if (spec.name == kHierarchical) {
    return "rank order within and across nodes of " + std::to_string(spec.ranksPerNode);
  }
  const std::vector<RingOrder> orders = ringOrdersOf(spec, ranks);
  if (orders.empty()) return "n/a (" + spec.name + " has no ring)";
  std::string text;
  for (const RingOrder& order : orders) text += (text.empty() ? "" : " | ") + order.toString();
  return text;
}

}  // namespace ringlab::schedule
