#pragma once
// An algorithm's name and parameters (AlgorithmSpec), and the schedule builders that read a spec.
// The table of algorithms (which builder, closed form, count period and names in other tools each
// has) is model::algorithmRegistry() (ringlab/model/registry.hpp): the one place that turns a name
// into a Schedule, for the CLI, the Communicator and the lab alike.
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

// The names of the algorithms whose spec fields this layer reads (ring_shape.hpp).
inline constexpr const char* kRing = "ring";
inline constexpr const char* kMultiRing = "multi_ring";
inline constexpr const char* kHierarchical = "hierarchical";

struct AlgorithmSpec {
  std::string name = kRing;
  // ring, and multi_ring's base order: empty means ranks 0..p-1 in order.
  std::vector<int> ringOrder;
  // ring, multi_ring: which block each rank ends the reduce-scatter owning.
  int ownershipOffset = 0;
  int channels = 1;                             // multi_ring: k
  std::vector<std::vector<int>> channelOrders;  // multi_ring: explicit orders, else derived
  int ranksPerNode = 0;                         // hierarchical: ranks per node (must divide p)
  // reduce and broadcast (a call's parameter, not an algorithm's): the rank the result goes to or
  // the data comes from. 0 for the other collectives.
  int root = 0;

  bool operator==(const AlgorithmSpec&) const = default;
};

// The builders of the algorithms that take parameters, from a spec (not verified; the registry's
// buildSchedule verifies). The ring builds all three collectives, the others allreduce only.
Schedule ringFromSpec(Collective collective, int ranks, const AlgorithmSpec& spec);
Schedule multiRingFromSpec(int ranks, const AlgorithmSpec& spec);
Schedule hierarchicalFromSpec(int ranks, const AlgorithmSpec& spec);

}  // namespace ringlab::schedule
