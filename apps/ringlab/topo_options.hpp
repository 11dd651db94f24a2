#pragma once
// --topo / --topo-file / --nccl-topo / --placement / -p, shared by `ringlab topo`, `ringlab sim`
// and `ringlab bench`: declared once here; io::loadTopology reads and places.
#include <CLI/CLI.hpp>

#include "ringlab/io/topology_files.hpp"

namespace ringlab::cli {

using io::kMaxTopoRanks;
using io::PlacedTopology;

struct TopologyOptions : io::TopologySource {
  void add(CLI::App& app, bool withRanks = true);
  PlacedTopology load() const { return io::loadTopology(*this); }
};

}  // namespace ringlab::cli
