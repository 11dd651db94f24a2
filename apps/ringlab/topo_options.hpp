#pragma once
// --topo / --topo-file / --placement / -p, shared by `ringlab topo` and `ringlab sim`: the one
// place that reads a topology file (the library itself does no I/O) and places the ranks.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "ringlab/topo/placement.hpp"
#include "ringlab/topo/topology.hpp"

namespace ringlab::cli {

struct PlacedTopology {
  std::unique_ptr<topo::Topology> topology;
  std::unique_ptr<topo::Placement> placement;
  // "name (4 nodes x 2 slots, ...)" and "round-robin (n0: 0,2  n1: 1,3)", for record headers.
  std::string topologyText() const;
  std::string placementText() const;
};

struct TopologyOptions {
  std::string spec;      // --topo
  std::string file;      // --topo-file
  std::string ncclFile;  // --nccl-topo
  int ncclNodes = 1;     // --nccl-nodes
  std::string placement = "block";
  int ranks = 0;  // -p; 0: every slot
  void add(CLI::App& app, bool withRanks = true);
  // Reads or generates the topology, places the ranks, checks that every rank reaches every other.
  PlacedTopology load() const;
};

// Largest p the topology commands accept (the simulator's benchmark scale).
inline constexpr int kMaxTopoRanks = 1 << 20;

}  // namespace ringlab::cli
