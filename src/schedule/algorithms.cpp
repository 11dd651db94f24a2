#include "ringlab/schedule/algorithms.hpp"

#include <string>

#include "ringlab/core/error.hpp"
#include "ringlab/schedule/hierarchical.hpp"
#include "ringlab/schedule/multi_ring.hpp"
#include "ringlab/schedule/ring.hpp"
#include "ringlab/schedule/ring_shape.hpp"

namespace ringlab::schedule {

Schedule ringFromSpec(Collective collective, int ranks, const AlgorithmSpec& spec) {
  // The spec's own order, not one looked up by its name: the ring's builder may be registered
  // under another name (model::registerAlgorithm).
  const RingOrder order = singleRingOrder(spec, ranks);
  switch (collective) {
    case Collective::ReduceScatter:
      return ringReduceScatter(order, spec.ownershipOffset);
    case Collective::AllGather:
      return ringAllGather(order, spec.ownershipOffset);
    default:  // AllReduce (the registry builds the ring only for its three collectives)
      break;
  }
  return ringAllReduce(order, spec.ownershipOffset);
}

Schedule multiRingFromSpec(int ranks, const AlgorithmSpec& spec) {
  if (!spec.ringOrder.empty() && !spec.channelOrders.empty()) {
    throwInvalid("multi_ring was given both a ring order and channel orders: give one");
  }
  return multiRingAllReduce(ringOrdersOf(spec, ranks), spec.ownershipOffset);
}

Schedule hierarchicalFromSpec(int ranks, const AlgorithmSpec& spec) {
  if (spec.ranksPerNode == 0) {
    throwInvalid("hierarchical needs ranks per node, a divisor of p = " + std::to_string(ranks));
  }
  return hierarchicalAllReduce(ranks, spec.ranksPerNode);
}

}  // namespace ringlab::schedule
