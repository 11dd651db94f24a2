#pragma once
// Topologies of common shapes from a one-line spec, as --topo takes it:
//
//   nodes=4,ranks=8,rails=8,intra=100GB/s,inter=25GB/s[,shape=fat-tree][,...]
//
// Keys (every one optional except nodes; unknown keys are refused by name):
//   shape          switch (default): every NIC on one switch
//                  fat-tree: rail-optimised two-level fat tree: per group of `leaf` nodes, one
//                            leaf switch per rail; every leaf joined to every one of `spines`
//                            spines
//                  ring:     nodes in a ring, NIC r of each node joined to NIC r of the next
//                  torus:    2D torus `dims=AxB` (A*B = nodes), NIC r joined to NIC r of the four
//                            neighbours
//   nodes          number of nodes
//   ranks          slots per node (default 1)
//   rails          NICs per node (default 1); slot s uses NIC s*rails/ranks
//   intra          bandwidth of each slot's link to its node's fabric (default 100GB/s)
//   inter          bandwidth of each NIC's network link(s) (default 12.5GB/s)
//   pcie           bandwidth of each slot's link to its NIC (default: intra)
//   intra_latency  (default 1us)      inter_latency  per network link (default 2us)
//   inter_shared   what two or more transfers sharing a network link get together, where less
//                  than inter (measured; see Link::sharedBandwidth_Bps). Default: inter
//   leaf           nodes per leaf group (fat-tree; default min(nodes, 16))
//   spines         spine switches (fat-tree; default: rails)
//   uplink         bandwidth of each leaf-spine link (fat-tree; default: full bisection,
//                  inter x leaf / spines)
//   name           the topology's name (default: the spec itself)
// Bandwidths as parseBandwidth reads them (GB/s = 1e9 B/s, or Gbit/s), latencies as parseSeconds.
#include <cstdint>
#include <string>
#include <string_view>

#include "ringlab/topo/topology.hpp"

namespace ringlab::topo {

enum class TopologyShape { Switch, FatTree, Ring, Torus };

// A generated topology, typed: what parseTopologySpec reads from the one-line spec.
struct TopologySpec {
  std::string text;  // the spec as written, quoted in errors
  std::string what =
      "the topology spec";  // the caller's name for the spec, which errors start with
  TopologyShape shape = TopologyShape::Switch;
  int nodes = 1, ranks = 1, rails = 1;
  LinkSpec intra, pcie, inter;
  int leaf = 0, spines = 0;  // fat-tree; 0: the default
  double uplink_Bps = 0;     // fat-tree; 0: full bisection
  int dimsA = 0, dimsB = 0;  // torus: dimsA x dimsB = nodes
  std::string name;          // the topology's name
};

// Throws InvalidArgument naming the key for a bad spec. Every error starts with `what`, the
// caller's name for the spec (a front end passes its flag, keyword or field: the library never
// names a front end's option itself).
TopologySpec parseTopologySpec(std::string_view text, std::string_view what = "the topology spec");

// Throws InvalidArgument, before building anything, for a shape whose topology is estimated
// (topologyBytesEstimate) over kMaxTopologyBytes.
Topology generateTopology(const TopologySpec& spec);
// The two in one.
Topology generateTopology(std::string_view text, std::string_view what = "the topology spec");

// The largest topology generated: 1 GiB estimated, which holds about 2^20 slots (nodes=65536,
// ranks=16 is about 0.8 GiB; nodes=1048576,ranks=16 about 13 GiB is refused).
inline constexpr std::uint64_t kMaxTopologyBytes = 1ull << 30;

// Bytes a topology of this many vertices and directed links takes in memory, with what is built
// beside it for routing and link loads (estimated).
std::uint64_t topologyBytesEstimate(double vertices, double directedLinks);

// Throws InvalidArgument "<what>: about 13.2 GiB, over the 1 GiB a topology may take; <advice>"
// when a topology of this many vertices and directed links is estimated over kMaxTopologyBytes:
// every builder of a topology whose size the user chooses asks before building any of it.
void checkTopologyEstimate(double vertices, double directedLinks, std::string_view what,
                           std::string_view advice);

}  // namespace ringlab::topo
