#include "ringlab/io/topology_files.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/topo/file_format.hpp"
#include "ringlab/topo/generators.hpp"
#include "ringlab/topo/nccl_xml.hpp"
#include "ringlab/topo/router.hpp"

namespace ringlab::io {

std::string PlacedTopology::topologyText() const {
  return topology->name() + " (" + topology->summary() + ")";
}

std::string PlacedTopology::placementText() const {
  return placement->describe(*topology);
}

namespace {

topo::Topology readTopology(const TopologySource& s) {
  if (s.generated) return topo::generateTopology(*s.generated);
  if (!s.file.empty()) {
    // ringlab's JSON, or NCCL's XML (a dump or an NCCL_TOPO_FILE), told apart by the first mark.
    const std::string text = readTextFile(s.file, s.labels.file, kTopologyInput);
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '<')
      return topo::parseNcclTopologyXml(text, s.file, s.ncclNodes, 2e-6, s.ncclDriver);
    return topo::parseTopologyJson(text, s.file);
  }
  if (!s.ncclFile.empty()) {
    return topo::parseNcclTopologyXml(
        readTextFile(s.ncclFile, s.labels.ncclFile, kNcclTopologyInput), s.ncclFile, s.ncclNodes,
        2e-6, s.ncclDriver);
  }
  throwInvalid("give a topology: " + s.labels.spec + " nodes=N,ranks=R,..., " + s.labels.file +
               " FILE or " + s.labels.ncclFile + " FILE");
}

}  // namespace

PlacedTopology loadTopology(const TopologySource& s) {
  PlacedTopology placed;
  placed.topology = std::make_unique<topo::Topology>(readTopology(s));
  const int p = s.ranks == 0 ? placed.topology->slotCount() : s.ranks;
  if (p < 1 || p > kMaxRanks) {
    throwInvalid("p = " + std::to_string(p) + ": the number of ranks must be in 1.." +
                 std::to_string(kMaxRanks));
  }
  placed.placement = std::make_unique<topo::Placement>(
      topo::Placement::parse(*placed.topology, s.placement, p, s.labels.placement));
  topo::checkConnected(*placed.topology, *placed.placement);
  return placed;
}

void writeTopologyFile(const topo::Topology& topology, const std::string& path,
                       std::string_view what) {
  writeTextFile(path, topo::topologyToJson(topology), what);
}

}  // namespace ringlab::io
