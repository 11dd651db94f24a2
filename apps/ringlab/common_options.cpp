#include "common_options.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/schedule/ring_order.hpp"

namespace ringlab::cli {

void AlgorithmOptions::add(CLI::App& app) {
  app.add_option("--algo", algo, "algorithm: " + model::joinedNames(model::algorithmNames()));
  auto* order = app.add_option("--ring-order", ringOrderList,
                               "ring order as a permutation of 0..p-1, e.g. 0,2,4,6,1,3,5,7");
  auto* strideOption = app.add_option("--ring-stride", ringStride,
                                      "ring order i -> i*a mod p; a must be coprime with p");
  order->excludes(strideOption);
  app.add_option("--channels", channels,
                 "multi_ring: number of rings k, each carrying 1/k of the data");
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

void checkRanks(int ranks) {
  if (ranks < 1 || ranks > kMaxRanks) {
    throwInvalid("p = " + std::to_string(ranks) + ": the number of ranks must be in 1.." +
                 std::to_string(kMaxRanks));
  }
}

}  // namespace ringlab::cli
