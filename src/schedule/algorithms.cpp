#include "ringlab/schedule/algorithms.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/schedule/ring.hpp"
#include "ringlab/schedule/verify.hpp"

namespace ringlab::schedule {

const std::vector<std::string>& algorithmNames() {
  static const std::vector<std::string> kNames = {"ring"};
  return kNames;
}

Schedule buildSchedule(Collective collective, int ranks, const AlgorithmSpec& spec) {
  if (spec.name != "ring") {
    throwInvalid("unknown algorithm '" + spec.name + "': valid are ring");
  }
  const RingOrder order = spec.ringOrder.empty() ? RingOrder::identity(ranks)
                                                 : RingOrder::fromList(spec.ringOrder, ranks);
  Schedule s;
  switch (collective) {
    case Collective::AllReduce: s = ringAllReduce(order, spec.ownershipOffset); break;
    case Collective::ReduceScatter: s = ringReduceScatter(order, spec.ownershipOffset); break;
    case Collective::AllGather: s = ringAllGather(order, spec.ownershipOffset); break;
  }
  verifyOrThrow(s);
  return s;
}

}  // namespace ringlab::schedule
