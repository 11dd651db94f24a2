#pragma once
// An algorithm as a user chooses it, before p is known: its name, a ring order given as a list or
// as a stride, channels and ranks per node. The one request type for the choice: the CLI fills
// it from --algo, --ring-order | --ring-stride, --channels and --ranks-per-node, the Python
// package from AlgorithmArgs' keyword arguments, the lab from its order fields; each turns it into
// the spec for its p here.
#include <optional>
#include <string>
#include <vector>

#include "ringlab/schedule/algorithms.hpp"

namespace ringlab::schedule {

struct AlgorithmChoice {
  std::string name = kRing;
  std::optional<std::vector<int>> ringOrder;  // the ranks around the ring, in order
  std::optional<int> ringStride;              // or the ring i -> i * stride mod p
  int channels = 1;                           // multi_ring
  int ranksPerNode = 0;                       // hierarchical; 0: not given

  // The spec for p ranks; model::buildSchedule then refuses a field the algorithm does not read.
  // Throws InvalidArgument for both an order and a stride, an order that is not a permutation of
  // 0..p-1, or a stride whose ring is a shorter cycle (RingOrder's messages).
  AlgorithmSpec spec(int ranks) const;
};

}  // namespace ringlab::schedule
