#include "ringlab/topo/ring_export.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::topo {

std::string openMpiRankfile(const Topology& topology, const Placement& placement,
                            const schedule::RingOrder& ring, const HostMap* hosts,
                            std::string_view hostsWhat) {
  if (hosts) checkHosts(*hosts, topology, placement, hostsWhat);
  std::string text =
      "# Open MPI rankfile: mpirun --rankfile FILE; rank i sits where ring position i was\n";
  for (int i = 0; i < ring.size(); ++i) {
    const SlotRef s = placement.at(ring.ranks()[i]);
    text += "rank " + std::to_string(i) + "=" + hostOf(hosts, topology, s.node) +
            " slot=" + std::to_string(s.slot) + "\n";
  }
  return text;
}

std::string mpichMachinefile(const Topology& topology, const Placement& placement,
                             const schedule::RingOrder& ring, const HostMap* hosts,
                             std::string_view hostsWhat) {
  if (hosts) checkHosts(*hosts, topology, placement, hostsWhat);
  // MPICH (Hydra) gives ranks to the lines in order; host:1 puts one rank on each line.
  std::string text = "# MPICH machinefile: mpiexec -f FILE; rank i on line i\n";
  for (int i = 0; i < ring.size(); ++i)
    text += hostOf(hosts, topology, placement.nodeOf(ring.ranks()[i])) + ":1\n";
  return text;
}

std::string ncclGraphXml(const Topology& topology, const Placement& placement,
                         const std::vector<schedule::RingOrder>& rings, int node) {
  const Node& n = topology.nodes().at(node);
  double intra = std::numeric_limits<double>::infinity(), inter = intra;
  for (int slot : n.slots)
    intra = std::min(intra, topology.links()[topology.linkBetween(slot, n.fabric)].bandwidth_Bps);
  std::string channels;
  for (std::size_t c = 0; c < rings.size(); ++c) {
    const schedule::RingOrder& ring = rings[c];
    // Start where the ring enters this node from another one (anywhere, if it never leaves).
    int start = -1, any = -1;
    for (int i = 0; i < ring.size() && start < 0; ++i) {
      const int r = ring.ranks()[i];
      if (placement.nodeOf(r) != node) continue;
      if (any < 0) any = i;
      if (placement.nodeOf(ring.previous(r)) != node) start = i;
    }
    if (start < 0) start = any;
    if (start < 0)
      throwInvalid("NCCL graph for node " + n.name + ": ring " + std::to_string(c) +
                   " has no rank there");
    std::vector<int> slots;
    for (int i = 0; i < ring.size(); ++i) {
      const int r = ring.rankAt(start + static_cast<long>(i));
      if (placement.nodeOf(r) == node) slots.push_back(placement.at(r).slot);
    }
    const auto nicOf = [&](int slot) { return n.slotNic[slot] < 0 ? 0 : n.slotNic[slot]; };
    for (int nic : n.nics) {
      for (int l : topology.outLinks(nic)) {
        if (topology.vertices()[topology.links()[l].to].kind != VertexKind::Slot)
          inter = std::min(inter, topology.links()[l].bandwidth_Bps);
      }
    }
    channels += "    <channel>\n";
    if (!n.nics.empty())
      channels += "      <net dev=\"" + std::to_string(nicOf(slots.front())) + "\"/>\n";
    for (int slot : slots) channels += "      <gpu dev=\"" + std::to_string(slot) + "\"/>\n";
    if (!n.nics.empty())
      channels += "      <net dev=\"" + std::to_string(nicOf(slots.back())) + "\"/>\n";
    channels += "    </channel>\n";
  }
  if (!std::isfinite(inter)) inter = intra;
  // Speeds in GB/s per channel, as NCCL's own search writes them.
  return "<graphs version=\"1\">\n  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"" +
         std::to_string(rings.size()) + "\" speedintra=\"" + formatNumber(intra / 1e9) +
         "\" speedinter=\"" + formatNumber(inter / 1e9) +
         "\" latencyinter=\"0\" typeintra=\"NVL\" typeinter=\"PIX\" samechannels=\"0\">\n" +
         channels + "  </graph>\n</graphs>\n";
}

std::string exportRings(std::string_view kind, const Topology& topology, const Placement& placement,
                        const std::vector<schedule::RingOrder>& rings, const HostMap* hosts,
                        const ExportLabels& labels) {
  if (kind == "ring-order") {
    std::string text;
    for (const schedule::RingOrder& ring : rings) text += ring.toString() + "\n";
    return text;
  }
  if (kind == "rankfile")
    return openMpiRankfile(topology, placement, rings.front(), hosts, labels.hosts);
  if (kind == "machinefile")
    return mpichMachinefile(topology, placement, rings.front(), hosts, labels.hosts);
  if (kind == "nccl-graph") return ncclGraphXml(topology, placement, rings, placement.nodeOf(0));
  throwInvalid(labels.kind + " " + std::string(kind) +
               ": valid are ring-order, rankfile, machinefile, nccl-graph");
}

}  // namespace ringlab::topo
