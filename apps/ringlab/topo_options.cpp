#include "topo_options.hpp"

#include <fstream>
#include <sstream>

#include "ringlab/core/error.hpp"
#include "ringlab/topo/file_format.hpp"
#include "ringlab/topo/generators.hpp"
#include "ringlab/topo/nccl_xml.hpp"
#include "ringlab/topo/router.hpp"

namespace ringlab::cli {

std::string PlacedTopology::topologyText() const {
  return topology->name() + " (" + topology->summary() + ")";
}

std::string PlacedTopology::placementText() const {
  return placement->describe(*topology);
}

void TopologyOptions::add(CLI::App& app, bool withRanks) {
  auto* topoOption =
      app.add_option("--topo", spec,
                     "generated topology, e.g. nodes=4,ranks=8,rails=8,intra=100GB/s,inter=25GB/s"
                     "[,shape=switch|fat-tree|ring|torus] (docs/TOPOLOGY.md)");
  auto* fileOption = app.add_option("--topo-file", file,
                                    "topology file in ringlab's JSON format (docs/TOPOLOGY.md)");
  topoOption->excludes(fileOption);
  auto* ncclOption = app.add_option(
      "--nccl-topo", ncclFile, "NCCL topology dump (NCCL_TOPO_DUMP_FILE) for the node's inside");
  ncclOption->excludes(topoOption)->excludes(fileOption);
  app.add_option("--nccl-nodes", ncclNodes, "--nccl-topo: copies of that node, on one switch")
      ->capture_default_str();
  app.add_option("--placement", placement,
                 "where ranks sit: block, round-robin (rr), or one node name per rank: n0,n1,n0,n1")
      ->capture_default_str();
  if (withRanks)
    app.add_option("-p,--ranks", ranks, "number of ranks (default: every slot of the topology)");
}

PlacedTopology TopologyOptions::load() const {
  PlacedTopology placed;
  if (!spec.empty()) {
    placed.topology = std::make_unique<topo::Topology>(topo::generateTopology(spec));
  } else if (!file.empty()) {
    std::ifstream in(file);
    if (!in) throwInvalid("--topo-file " + file + ": cannot open for reading");
    std::ostringstream text;
    text << in.rdbuf();
    placed.topology = std::make_unique<topo::Topology>(topo::parseTopologyJson(text.str(), file));
  } else if (!ncclFile.empty()) {
    std::ifstream in(ncclFile);
    if (!in) throwInvalid("--nccl-topo " + ncclFile + ": cannot open for reading");
    std::ostringstream text;
    text << in.rdbuf();
    placed.topology = std::make_unique<topo::Topology>(
        topo::parseNcclTopologyXml(text.str(), ncclFile, ncclNodes, 2e-6));
  } else {
    throwInvalid(
        "give a topology: --topo nodes=N,ranks=R,..., --topo-file FILE or --nccl-topo FILE");
  }
  const int p = ranks == 0 ? placed.topology->slotCount() : ranks;
  if (p < 1 || p > kMaxTopoRanks) {
    throwInvalid("-p " + std::to_string(p) + ": must be in 1.." + std::to_string(kMaxTopoRanks));
  }
  placed.placement =
      std::make_unique<topo::Placement>(topo::Placement::parse(*placed.topology, placement, p));
  topo::checkConnected(*placed.topology, *placed.placement);
  return placed;
}

}  // namespace ringlab::cli
