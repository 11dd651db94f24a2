#pragma once
// Import of NCCL's topology dump (NCCL_TOPO_DUMP_FILE, `<system version="1">`) for the intra-node
// part: each <gpu> becomes a slot (ordered by its dev), each <net> a NIC. A slot's link to its
// node's fabric has its NVLinks' bandwidth (count x NCCL's per-link figure for the GPU's sm: 18
// GB/s for sm 6x, 20 for 7x and 8x, 20.6 for 9x and later), or its PCIe link's where it has none
// (GT/s x width x 128/130 / 8); a NIC's bandwidth is its `speed` (Mb/s). A GPU sends through the
// NIC nearest to it in the PCI tree (the deepest common bridge; ties: the lower dev), as NCCL
// prefers PIX/PXB paths.
//
// `nodes` copies of that node are joined by one switch, each NIC by a link of its own speed and
// `networkLatency_s`: the network is not in the dump. Refused with the element named: another
// version than 1, a document that is not <system>, a GPU or NIC without the attributes above,
// malformed XML.
#include <string>

#include "ringlab/topo/topology.hpp"

namespace ringlab::topo {

Topology parseNcclTopologyXml(const std::string& text, const std::string& source, int nodes,
                              double networkLatency_s);

}  // namespace ringlab::topo
