#include "ringlab/schedule/algorithms.hpp"

#include <functional>
#include <string>

#include "ringlab/core/error.hpp"
#include "ringlab/schedule/binomial_tree.hpp"
#include "ringlab/schedule/hierarchical.hpp"
#include "ringlab/schedule/multi_ring.hpp"
#include "ringlab/schedule/rabenseifner.hpp"
#include "ringlab/schedule/recursive_doubling.hpp"
#include "ringlab/schedule/ring.hpp"
#include "ringlab/schedule/verify.hpp"

namespace ringlab::schedule {
namespace {

// Which AlgorithmSpec fields an algorithm reads; a field set for an algorithm that ignores it is
// rejected, so that a mistyped --algo never silently drops --channels and the like.
enum Uses : unsigned { kRingOrder = 1, kChannels = 2, kRanksPerNode = 4 };

struct Algorithm {
  std::string name;
  unsigned uses = 0;
  bool allCollectives = false;  // false: allreduce only
  std::function<Schedule(Collective, int, const AlgorithmSpec&)> build;
};

RingOrder ringOrderOf(int ranks, const AlgorithmSpec& spec) {
  return spec.ringOrder.empty() ? RingOrder::identity(ranks)
                                : RingOrder::fromList(spec.ringOrder, ranks);
}

Schedule buildRing(Collective collective, int ranks, const AlgorithmSpec& spec) {
  const RingOrder order = ringOrderOf(ranks, spec);
  switch (collective) {
    case Collective::ReduceScatter:
      return ringReduceScatter(order, spec.ownershipOffset);
    case Collective::AllGather:
      return ringAllGather(order, spec.ownershipOffset);
    case Collective::AllReduce:
      break;
  }
  return ringAllReduce(order, spec.ownershipOffset);
}

const std::vector<Algorithm>& algorithms() {
  static const std::vector<Algorithm> kAlgorithms = {
      {"ring", kRingOrder, true, buildRing},
      {"recursive_doubling", 0, false,
       [](Collective, int p, const AlgorithmSpec&) { return recursiveDoublingAllReduce(p); }},
      {"rabenseifner", 0, false,
       [](Collective, int p, const AlgorithmSpec&) { return rabenseifnerAllReduce(p); }},
      {"binomial_tree", 0, false,
       [](Collective, int p, const AlgorithmSpec&) { return binomialTreeAllReduce(p); }},
      {"multi_ring", kRingOrder | kChannels, false,
       [](Collective, int p, const AlgorithmSpec& spec) {
         if (!spec.ringOrder.empty() && !spec.channelOrders.empty()) {
           throwInvalid("multi_ring was given both a ring order and channel orders: give one");
         }
         return multiRingAllReduce(
             multiRingOrders(p, spec.channels, spec.channelOrders, spec.ringOrder),
             spec.ownershipOffset);
       }},
      {"hierarchical", kRanksPerNode, false,
       [](Collective, int p, const AlgorithmSpec& spec) {
         if (spec.ranksPerNode == 0) {
           throwInvalid(
               "hierarchical needs ranks per node (--ranks-per-node N), a divisor of p = " +
               std::to_string(p));
         }
         return hierarchicalAllReduce(p, spec.ranksPerNode);
       }},
  };
  return kAlgorithms;
}

std::string joinedNames() {
  std::string out;
  for (const std::string& name : algorithmNames()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

void rejectUnused(const Algorithm& a, const AlgorithmSpec& spec) {
  const std::string who = "algorithm '" + a.name + "'";
  if (!(a.uses & kRingOrder) && !spec.ringOrder.empty()) {
    throwInvalid(who + " takes no ring order: ring orders apply to ring and multi_ring");
  }
  if (!(a.uses & kRingOrder) && spec.ownershipOffset != 0) {
    throwInvalid(who + " takes no ownership offset (" + std::to_string(spec.ownershipOffset) +
                 "): offsets apply to ring and multi_ring");
  }
  if (!(a.uses & kChannels) && (spec.channels != 1 || !spec.channelOrders.empty())) {
    throwInvalid(who + " runs one channel, but was given " + std::to_string(spec.channels) +
                 " channels and " + std::to_string(spec.channelOrders.size()) +
                 " channel orders: channels apply to multi_ring");
  }
  if (!(a.uses & kRanksPerNode) && spec.ranksPerNode != 0) {
    throwInvalid(who + " takes no ranks per node (" + std::to_string(spec.ranksPerNode) +
                 "): ranks per node applies to hierarchical");
  }
}

}  // namespace

const std::vector<std::string>& algorithmNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const Algorithm& a : algorithms()) names.push_back(a.name);
    return names;
  }();
  return kNames;
}

Schedule buildSchedule(Collective collective, int ranks, const AlgorithmSpec& spec) {
  const Algorithm* found = nullptr;
  for (const Algorithm& a : algorithms()) {
    if (a.name == spec.name) found = &a;
  }
  if (!found) throwInvalid("unknown algorithm '" + spec.name + "': valid are " + joinedNames());
  if (ranks < 1)
    throwInvalid("p = " + std::to_string(ranks) + ": the number of ranks must be >= 1");
  rejectUnused(*found, spec);
  if (!found->allCollectives && collective != Collective::AllReduce) {
    throwInvalid("algorithm '" + found->name + "' builds allreduce only, not " +
                 collectiveName(collective) + ": use ring for reduce_scatter and allgather");
  }
  Schedule s = found->build(collective, ranks, spec);
  verifyOrThrow(s);
  return s;
}

}  // namespace ringlab::schedule
