#include "topo_options.hpp"

namespace ringlab::cli {

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
  app.add_option("--nccl-nodes", ncclNodes, "--nccl-topo: copies of that node, on one switch");
  app.add_option(
      "--placement", placement,
      "where ranks sit: block, round-robin (rr), or one node name per rank: n0,n1,n0,n1");
  if (withRanks)
    app.add_option("-p,--ranks", ranks, "number of ranks (default: every slot of the topology)");
}

}  // namespace ringlab::cli
