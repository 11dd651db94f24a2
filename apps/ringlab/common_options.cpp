#include "common_options.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/schedule/ring_order.hpp"

namespace ringlab::cli {

void RingOrderOptions::add(CLI::App& app) {
  auto* order = app.add_option("--ring-order", list,
                               "ring order as a permutation of 0..p-1, e.g. 0,2,4,6,1,3,5,7");
  auto* strideOption = app.add_option("--ring-stride", stride,
                                      "ring order i -> i*a mod p; a must be coprime with p");
  order->excludes(strideOption);
}

std::vector<int> RingOrderOptions::resolve(int ranks) const {
  if (!list.empty()) return schedule::RingOrder::parse(list, ranks).ranks();
  if (stride != 0) return schedule::RingOrder::fromStride(ranks, stride).ranks();
  return {};
}

void checkRanks(int ranks) {
  if (ranks < 1 || ranks > kMaxRanks) {
    throwInvalid("p = " + std::to_string(ranks) + ": the number of ranks must be in 1.." +
                 std::to_string(kMaxRanks));
  }
}

}  // namespace ringlab::cli
