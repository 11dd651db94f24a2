#include "ringlab/schedule/algorithm_choice.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/schedule/ring_order.hpp"

namespace ringlab::schedule {

AlgorithmSpec AlgorithmChoice::spec(int ranks) const {
  if (ringOrder && ringStride)
    throwInvalid("both a ring order and a ring stride were given: give one of them");
  AlgorithmSpec spec;
  spec.name = name;
  if (ringOrder) spec.ringOrder = RingOrder::fromList(*ringOrder, ranks).ranks();
  if (ringStride) spec.ringOrder = RingOrder::fromStride(ranks, *ringStride).ranks();
  spec.channels = channels;
  spec.ranksPerNode = ranksPerNode;
  return spec;
}

}  // namespace ringlab::schedule
