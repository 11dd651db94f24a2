#pragma once
// Ring orders (and sets of k rings, one per channel) chosen for a topology and placement.
//
// Objective (the issue's): predicted ring AllReduce time
//     T = 2(p-1) x ( c x max over links l of n_l / bw_l  +  max over ring edges of path latency )
// where c = bytes / (k p) is one channel's chunk and n_l counts the ring edges, over all k
// channels, whose route crosses directed link l. It is an upper bound of link_load.hpp's step
// time for a ring (the slowest link and the slowest path need not be on one transfer).
//
// Method: for p <= kExactRanks, exhaustive branch and bound over the (p-1)! orders that start at
// rank 0 (the objective only grows as edges are added, so a partial order that already costs
// as much as the best complete one is cut): exact. Beyond it, a heuristic: the best of rank
// order, nodes visited in topology order with each node's ranks in a snake (so that a ring
// leaves a node on the rail it entered a rail-optimised fabric on), and, for p <= 512, greedy
// nearest neighbour by path latency; then a swap local search. k rings are found one after
// another, each priced with the earlier rings' link loads already in place, so later rings avoid
// links the earlier ones fill (rails, link directions).
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/core/progress.hpp"
#include "ringlab/schedule/ring_order.hpp"
#include "ringlab/topo/placement.hpp"
#include "ringlab/topo/topology.hpp"

namespace ringlab::topo {

inline constexpr int kExactRanks = 10;

struct RingCost {
  double time_s = 0;        // predicted AllReduce time
  double step_s = 0;        // one step
  double bottleneck_s = 0;  // c x max n_l / bw_l
  double latency_s = 0;     // the slowest edge's path latency
  int bottleneckLink = -1;
};

// The objective for given rings (all over the same p ranks), for a message of `bytes`.
RingCost ringCost(const Topology& topology, const Placement& placement,
                  const std::vector<schedule::RingOrder>& rings, double bytes);

// The caller's names for the inputs of a ring search or report, which its errors start with. The
// library never names a front end's option: each front end passes its own (the CLI its flags,
// Python its keyword arguments); these defaults are the library's words.
struct RingLabels {
  std::string order = "the ring orders";
  std::string channels = "the number of rings";
  std::string size = "the message size";
};

struct RingSearchOptions {
  double bytes = 64.0 * 1024 * 1024;  // the message the objective prices
  int channels = 1;
  std::uint64_t seed = 1;  // the local search's swaps
  // Hears the search's stages ("rank order", "ring 1/2: swap search", "pricing the rings
  // found"); units: rank order priced, each ring's candidate set and swaps tried, result priced.
  ProgressCallback progress;
  RingLabels labels;
};

struct RingSearchResult {
  std::vector<schedule::RingOrder> rings;
  RingCost cost;
  RingCost rankOrderCost;   // the rings multi_ring derives from rank order (k = 1: 0,1,...,p-1)
  double lowerBound_s = 0;  // no k rings can do better (see lowerBound)
  std::string method;
};

RingSearchResult searchRings(const Topology& topology, const Placement& placement,
                             const RingSearchOptions& options);

// A lower bound on T for any k rings: per step, each rank sends k chunks through its own slot
// links; every node that holds some but not all ranks sends at least k chunks out, each over one
// first network link of one of its NICs (at best the k fastest); a ring over two or more nodes
// crosses at least one NIC -> network -> NIC path. It ignores links beyond the first hop (a fat
// tree's spine uplinks), so it is loose where those are thinner than the NICs.
double ringLowerBound(const Topology& topology, const Placement& placement, double bytes,
                      int channels);

}  // namespace ringlab::topo
