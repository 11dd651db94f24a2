#pragma once
// A chosen ring order in forms other tools apply:
//   - a rank list for ringlab's own --ring-order ("0,2,1,3");
//   - an Open MPI rankfile and an MPICH machinefile that renumber the ranks so that rank order
//     IS the chosen ring: new rank i runs where the ring's i-th rank was placed, so any library
//     that rings in rank order (NCCL between nodes, NVIDIA/nccl issue 1340) follows it; hosts
//     are the topology's node names, or the user's hosts through a HostMap (host_map.hpp);
//   - an NCCL graph file (NCCL_GRAPH_FILE, pattern 4 = ring) with each channel's order of the
//     slots (GPU devices) of one node, entered and left through the NICs the ring uses there.
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/schedule/ring_order.hpp"
#include "ringlab/topo/host_map.hpp"
#include "ringlab/topo/placement.hpp"
#include "ringlab/topo/topology.hpp"

namespace ringlab::topo {

// With `hosts`, every node holding ranks must be mapped (checkHosts); null: node names.
// `hostsWhat` is the caller's name for the host list, in checkHosts' advice.
std::string openMpiRankfile(const Topology& topology, const Placement& placement,
                            const schedule::RingOrder& ring, const HostMap* hosts = nullptr,
                            std::string_view hostsWhat = "the host list");
std::string mpichMachinefile(const Topology& topology, const Placement& placement,
                             const schedule::RingOrder& ring, const HostMap* hosts = nullptr,
                             std::string_view hostsWhat = "the host list");
// The intra-node part of each ring on node `node` (which must hold ranks of every ring).
std::string ncclGraphXml(const Topology& topology, const Placement& placement,
                         const std::vector<schedule::RingOrder>& rings, int node);

// The export named `kind`: ring-order (one line per ring), rankfile and machinefile (the first
// ring), nccl-graph (every ring, on the node of rank 0). Throws InvalidArgument naming the valid
// kinds for another. `hosts` is for rankfile and machinefile.
// The caller's names for the export kind and the host list, which errors start with: the library
// never names a front end's option; the CLI passes its flags.
struct ExportLabels {
  std::string kind = "the export kind";
  std::string hosts = "the host list";
};
std::string exportRings(std::string_view kind, const Topology& topology, const Placement& placement,
                        const std::vector<schedule::RingOrder>& rings,
                        const HostMap* hosts = nullptr, const ExportLabels& labels = {});

}  // namespace ringlab::topo
