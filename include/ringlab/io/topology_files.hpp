#pragma once
// A topology from where the user names it (a generated spec, ringlab's JSON file, an NCCL
// topology file), with the ranks placed on it: the one place that reads topology files.
#include <memory>
#include <optional>
#include <string>

#include "ringlab/core/limits.hpp"

#include "ringlab/topo/generators.hpp"
#include "ringlab/topo/nccl_xml.hpp"
#include "ringlab/topo/placement.hpp"
#include "ringlab/topo/topology.hpp"

namespace ringlab::io {

// The caller's names for a topology's inputs, which errors start with (labels: see
// model_files.hpp); the defaults are the library's words.
struct TopologyLabels {
  std::string spec = "the topology spec";
  std::string file = "the topology file";
  std::string ncclFile = "the NCCL topology file";
  std::string placement = "the placement";
};

// Exactly one of generated, file, ncclFile is given (the others empty).
struct TopologySource {
  // Generated from a spec the front end parsed (topo::parseTopologySpec, with its label for it).
  std::optional<topo::TopologySpec> generated;
  std::string file;                    // ringlab's JSON format, or NCCL's topology XML
  std::string ncclFile;                // NCCL's topology XML (topo/nccl_xml.hpp): one node's inside
  int ncclNodes = 1;                   // NCCL XML: copies of that node, on one switch
  topo::NcclDriverFigures ncclDriver;  // NCCL XML: what a file leaves to the driver, as given
  std::string placement = "block";     // block, round-robin (rr), or one node name per rank
  int ranks = 0;                       // 0: every slot
  TopologyLabels labels;               // how the front end names the fields above
  bool given() const { return generated || !file.empty() || !ncclFile.empty(); }
};

struct PlacedTopology {
  std::unique_ptr<topo::Topology> topology;
  std::unique_ptr<topo::Placement> placement;
  // "name (4 nodes x 2 slots, ...)" and "round-robin (n0: 0,2  n1: 1,3)", for record headers.
  std::string topologyText() const;
  std::string placementText() const;
};

// Reads or generates the topology, places the ranks, checks that every rank reaches every other.
// Throws InvalidArgument naming the input (by source.labels) and the problem.
PlacedTopology loadTopology(const TopologySource& source);

// Writes the topology in ringlab's JSON format; `what` names the option in errors.
void writeTopologyFile(const topo::Topology& topology, const std::string& path,
                       std::string_view what);

}  // namespace ringlab::io
