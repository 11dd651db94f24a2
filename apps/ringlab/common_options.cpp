#include "common_options.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/schedule/multi_ring.hpp"
#include "ringlab/schedule/ring_order.hpp"

namespace ringlab::cli {

void AlgorithmOptions::add(CLI::App& app) {
  std::string names;
  for (const std::string& name : schedule::algorithmNames())
    names += (names.empty() ? "" : ", ") + name;
  app.add_option("--algo", algo, "algorithm: " + names)->capture_default_str();
  auto* order = app.add_option("--ring-order", ringOrderList,
                               "ring order as a permutation of 0..p-1, e.g. 0,2,4,6,1,3,5,7");
  auto* strideOption = app.add_option("--ring-stride", ringStride,
                                      "ring order i -> i*a mod p; a must be coprime with p");
  order->excludes(strideOption);
  app.add_option("--channels", channels,
                 "multi_ring: number of rings k, each carrying 1/k of the data")
      ->capture_default_str();
  app.add_option("--ranks-per-node", ranksPerNode,
                 "hierarchical: consecutive ranks per node; must divide p");
}

schedule::AlgorithmSpec AlgorithmOptions::resolve(int ranks) const {
  schedule::AlgorithmSpec spec;
  spec.name = algo;
  if (!ringOrderList.empty())
    spec.ringOrder = schedule::RingOrder::parse(ringOrderList, ranks).ranks();
  if (ringStride) spec.ringOrder = schedule::RingOrder::fromStride(ranks, *ringStride).ranks();
  spec.channels = channels;
  spec.ranksPerNode = ranksPerNode;
  return spec;
}

std::string ringOrderText(const schedule::AlgorithmSpec& spec, int ranks) {
  if (spec.name == "ring") {
    return spec.ringOrder.empty() ? schedule::RingOrder::identity(ranks).toString()
                                  : schedule::RingOrder::fromList(spec.ringOrder, ranks).toString();
  }
  if (spec.name == "multi_ring") {
    std::string text;
    for (const schedule::RingOrder& order :
         schedule::multiRingOrders(ranks, spec.channels, spec.channelOrders, spec.ringOrder)) {
      text += (text.empty() ? "" : " | ") + order.toString();
    }
    return text;
  }
  if (spec.name == "hierarchical") {
    return "rank order within and across nodes of " + std::to_string(spec.ranksPerNode);
  }
  return "n/a (" + spec.name + " has no ring)";
}

void checkRanks(int ranks) {
  if (ranks < 1 || ranks > kMaxRanks) {
    throwInvalid("p = " + std::to_string(ranks) + ": the number of ranks must be in 1.." +
                 std::to_string(kMaxRanks));
  }
}

}  // namespace ringlab::cli
