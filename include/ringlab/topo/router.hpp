#pragma once
// Routing a send from one slot to another onto the directed links it crosses.
//
//   same node:      slot -> fabric -> slot, or the direct slot link where the node has one
//   other node:     slot -> its NIC -> network -> the destination slot's NIC -> slot
//
// Inside the network (NICs and switches) a send takes a path with the fewest links; where several
// such paths exist (the spines of a fat tree) the choice depends on the destination NIC only
// ("destination mod k", the static routing InfiniBand subnet managers use): sends to different
// NICs spread evenly over the spines, and one destination is always reached one way. Switches
// forward; a NIC forwards only where it has two or more network links (a torus or a ring of nodes
// without switches).
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ringlab/topo/placement.hpp"
#include "ringlab/topo/topology.hpp"

namespace ringlab::topo {

struct Route {
  std::vector<int> links;  // directed links, in order
  double latency_s = 0;    // sum over the links
};

class Router {
 public:
  explicit Router(const Topology& topology);
  // Throws InvalidArgument naming both ends when no path exists.
  Route route(int srcSlotVertex, int dstSlotVertex);
  // The same between ranks, naming the ranks and their slots when no path exists.
  Route route(const Placement& placement, int srcRank, int dstRank);
  const Topology& topology() const { return topology_; }

 private:
  void networkRoute(int srcNic, int dstNic, std::vector<int>& links);
  const std::vector<int>& distancesFrom(int transit);
  bool transit(int vertex) const { return transit_[vertex]; }

  const Topology& topology_;
  std::vector<std::vector<int>> netOut_, netIn_;  // network links only
  std::vector<char> transit_;
  std::vector<int> compact_;     // transit vertex -> index into a distance array (-1: not transit)
  std::vector<int> nicOrdinal_;  // NIC vertex -> its position among all NICs
  std::unordered_map<int, std::vector<int>>
      distances_;  // per source transit vertex, by compact index
};

// Throws InvalidArgument, naming the first two ranks with no route between them (and their slots),
// unless every rank can reach every other. Links are full duplex, so reach is symmetric and the
// routes from rank 0 to every rank decide it.
void checkConnected(const Topology& topology, const Placement& placement);

}  // namespace ringlab::topo
