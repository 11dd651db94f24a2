#pragma once
// The one place that turns an algorithm name and its parameters into a Schedule, for the CLI,
// the Communicator and the lab alike.
//
// Every schedule here combines contributions in whatever order its steps bring them together
// (ring order, butterfly partners, tree shape), so the result is the reduction over all ranks only
// for commutative and associative ops. All of ringlab's ops (sum, prod, min, max, avg) are; a
// non-commutative op would not be supported by any of these schedules. (Floating-point sums are
// identical on every rank of one schedule, but may differ in the last bits between algorithms.)
#include <string>
#include <vector>

#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

struct AlgorithmSpec {
  std::string name = "ring";
  // ring, and multi_ring's base order: empty means ranks 0..p-1 in order.
  std::vector<int> ringOrder;
  // ring, multi_ring: which block each rank ends the reduce-scatter owning.
  int ownershipOffset = 0;
  int channels = 1;                             // multi_ring: k
  std::vector<std::vector<int>> channelOrders;  // multi_ring: explicit orders, else derived
  int ranksPerNode = 0;                         // hierarchical: ranks per node (must divide p)

  bool operator==(const AlgorithmSpec&) const = default;
};

// The algorithm names ringlab knows, as accepted by --algo: ring, recursive_doubling,
// rabenseifner, binomial_tree, multi_ring, hierarchical.
const std::vector<std::string>& algorithmNames();

// Builds and verifies the schedule; throws InvalidArgument naming the bad value: an unknown name,
// a parameter the algorithm does not take (e.g. channels for ring), or a reduce_scatter or
// allgather asked of an algorithm other than ring (the others build allreduce only).
Schedule buildSchedule(Collective collective, int ranks, const AlgorithmSpec& spec);

}  // namespace ringlab::schedule
