#pragma once
// Which rank sits in which slot: kept apart from the topology, so that one machine can be tried
// with several placements (the launcher's choice, not the hardware's).
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/topo/topology.hpp"

namespace ringlab::topo {

struct SlotRef {
  int node = 0;
  int slot = 0;
};

class Placement {
 public:
  // Ranks fill node 0's slots, then node 1's, ... (mpirun --map-by slot, torchrun's default).
  static Placement block(const Topology& topology, int ranks);
  // Rank r goes to the next node in turn that has a free slot: with equal nodes, rank r on node
  // r mod nodes (mpirun --map-by node).
  static Placement roundRobin(const Topology& topology, int ranks);
  // One node name per rank; each rank takes its node's next free slot.
  static Placement onNodes(const Topology& topology, const std::vector<std::string>& nodePerRank);
  // "block", "round-robin" (or "rr"), or a comma-separated node list "n0,n1,n0,n1" (its length
  // must be `ranks`). Throws InvalidArgument naming the bad entry, and when a node would hold more
  // ranks than it has slots. Errors start with `what`, the caller's name for the spec.
  static Placement parse(const Topology& topology, std::string_view spec, int ranks,
                         std::string_view what = "the placement");

  int ranks() const { return static_cast<int>(slots_.size()); }
  SlotRef at(int rank) const { return slots_[rank]; }
  int vertex(int rank) const { return vertices_[rank]; }
  int nodeOf(int rank) const { return slots_[rank].node; }
  const std::string& kind() const { return kind_; }  // "block", "round-robin", "explicit"
  // "round-robin (n0: 0,2  n1: 1,3)", short enough for a record's header.
  std::string describe(const Topology& topology) const;

 private:
  Placement(const Topology& topology, std::string kind, std::vector<SlotRef> slots);
  std::string kind_;
  std::vector<SlotRef> slots_;
  std::vector<int> vertices_;
};

}  // namespace ringlab::topo
