#include "ringlab/gpu/system_topology.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "nccl_figures.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/gpu/nccl_model.hpp"
#include "ringlab/schedule/multi_ring.hpp"

namespace ringlab::gpu {
namespace {

// NCCL's hardware latency of one Ring Simple hop (us), by the link it crosses: NVLink, PCI, network
// (nccl_figures.hpp's order). xGMI counts as NVLink, as RCCL's tables do.
constexpr int kRing = 1, kSimple = 2;
constexpr int kNvlinkHop = 0, kPciHop = 1, kNetworkHop = 2;

double hopLatency_us(int link) {
  return nccl::kHwLatency_us[link][kRing][kSimple];
}

int intraHop(const GpuSystem& s) {
  return s.intra == IntraFabric::PCIe || s.nvlinks == 0 ? kPciHop : kNvlinkHop;
}

// The NIC a GPU of the node uses: the generator's rule (slot s uses NIC s x rails / ranks), which
// is the GPU-NIC affinity of a rail-optimised node.
int nicOf(const GpuSystem& s, int gpu) {
  return gpu * s.nicsPerNode / s.ranksPerNode;
}

// One node's GPUs (0..ranksPerNode-1) in the order channel c visits them.
std::vector<int> nodeOrder(const GpuSystem& s, int channel) {
  const int gpus = s.ranksPerNode;
  std::vector<int> order;
  if (s.nodes == 1 || s.nicsPerNode == 0) {
    for (int i = 0; i < gpus; ++i) order.push_back((channel + i) % gpus);
    return order;
  }
  std::vector<int> nics;  // the NICs in use, in order
  for (int g = 0; g < gpus; ++g)
    if (nics.empty() || nics.back() != nicOf(s, g)) nics.push_back(nicOf(s, g));
  const int nic = nics[channel % nics.size()];
  std::vector<int> sameNic;
  for (int g = 0; g < gpus; ++g)
    if (nicOf(s, g) == nic) sameNic.push_back(g);
  order.push_back(sameNic.front());
  for (int i = 1; i < gpus; ++i) {
    const int g = (sameNic.front() - i + gpus) % gpus;
    if (nicOf(s, g) != nic) order.push_back(g);
  }
  order.insert(order.end(), sameNic.begin() + 1, sameNic.end());
  return order;
}

}  // namespace

std::string topologySpec(const GpuSystem& s) {
  const double intraHop_us = hopLatency_us(intraHop(s));
  std::string spec =
      fmt::format("nodes={},ranks={},intra={:.6g}GB/s,intra_latency={:.6g}us", s.nodes,
                  s.ranksPerNode, s.intraBandwidth_Bps() / 1e9, intraHop_us / 2);
  if (s.nodes > 1) {
    // A node-to-node hop: GPU -> NIC -> switch -> NIC -> GPU, two links of each kind.
    spec += fmt::format(",rails={},inter={:.6g}GB/s,pcie={:.6g}GB/s,inter_latency={:.6g}us",
                        s.nicsPerNode, s.nicBandwidth_Bps / 1e9, s.pcieBandwidth_Bps() / 1e9,
                        std::max(0.0, hopLatency_us(kNetworkHop) - intraHop_us) / 2);
  }
  return spec + ",name=" + s.name;
}

std::string topologyNote(const GpuSystem& s) {
  std::string note = fmt::format(
      "the system drawn as a topology: each GPU's {} into its node as one link to a switch",
      s.intra == IntraFabric::PCIe ? "PCIe" : intraFabricName(s.intra));
  if (s.intra != IntraFabric::NVSwitch)
    note += " (generous: a mesh or a PCIe tree does not join every pair at full speed)";
  if (s.nodes > 1) note += ", every NIC on one non-blocking switch, no PXN";
  return note + "; hop latencies NCCL's Ring Simple figures (" + kNcclFigures + ")";
}

std::vector<schedule::RingOrder> ncclRings(const GpuSystem& s, int channels) {
  if (channels < 1 || channels > schedule::kMaxChannels) {
    throwInvalid(
        fmt::format("{} channels: NCCL's rings are 1 to {}", channels, schedule::kMaxChannels));
  }
  std::vector<schedule::RingOrder> rings;
  for (int c = 0; c < channels; ++c) {
    const std::vector<int> inNode = nodeOrder(s, c);
    std::vector<int> order;
    for (int node = 0; node < s.nodes; ++node)
      for (int g : inNode) order.push_back(node * s.ranksPerNode + g);
    rings.push_back(schedule::RingOrder::fromList(order, s.ranks()));
  }
  return rings;
}

int ncclRingChannels(const GpuSystem& s) {
  return NcclModel(s).graph(NcclAlgorithm::Ring).channels;
}

schedule::AlgorithmSpec ncclMultiRing(const GpuSystem& s, int channels) {
  schedule::AlgorithmSpec spec{.name = schedule::kMultiRing};
  spec.channels = channels > 0 ? channels : ncclRingChannels(s);
  for (const schedule::RingOrder& ring : ncclRings(s, spec.channels))
    spec.channelOrders.push_back(ring.ranks());
  return spec;
}

topo::ReferenceRings ncclReferenceRings(const GpuSystem& s, int channels) {
  return {"NCCL rings", ncclRings(s, channels > 0 ? channels : ncclRingChannels(s))};
}

}  // namespace ringlab::gpu
