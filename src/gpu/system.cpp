#include "ringlab/gpu/system.hpp"

#include <fmt/format.h>

#include "ringlab/core/enum_names.hpp"
#include "ringlab/core/error.hpp"
#include "topo/nccl_bandwidths.hpp"

namespace ringlab::gpu {

namespace {

constexpr EnumName<IntraFabric> kIntraFabricNames[] = {{IntraFabric::NVSwitch, "nvswitch"},
                                                       {IntraFabric::NVLink, "nvlink"},
                                                       {IntraFabric::PCIe, "pcie"},
                                                       {IntraFabric::XGMI, "xgmi"}};

}  // namespace

const char* intraFabricName(IntraFabric fabric) {
  return enumName(std::span(kIntraFabricNames), fabric).data();
}

namespace {

constexpr EnumName<Network> kNetworkNames[] = {{Network::InfiniBand, "ib"},
                                               {Network::RoCE, "roce"},
                                               {Network::EFA, "efa"},
                                               {Network::Slingshot, "slingshot"},
                                               {Network::TCP, "tcp"}};

}  // namespace

const char* networkName(Network network) {
  return enumName(std::span(kNetworkNames), network).data();
}

std::optional<IntraFabric> intraFabricFromName(std::string_view name) {
  return findEnum(std::span(kIntraFabricNames), name);
}

std::optional<Network> networkFromName(std::string_view name) {
  return findEnum(std::span(kNetworkNames), name);
}

double GpuSystem::pcieBandwidth_Bps() const {
  // NCCL's per-lane figure for the generation (kvDictPciGen), through the one table in topo.
  static const char* const kSpeeds[] = {"",        "2.5 GT/s", "5 GT/s",        "8 GT/s",
                                        "16 GT/s", "32 GT/s",  "64.0 GT/s PCIe"};
  const int gen = pcieGen >= 1 && pcieGen <= 6 ? pcieGen : 4;
  return topo::ncclPciBandwidth(kSpeeds[gen], pcieLanes);
}

double GpuSystem::intraBandwidth_Bps() const {
  if (intra == IntraFabric::PCIe || nvlinks == 0) return pcieBandwidth_Bps();
  return nvlinks * linkBandwidth_Bps;
}

namespace {

constexpr EnumName<Network> kNetworkTitles[] = {{Network::InfiniBand, "InfiniBand"},
                                                {Network::RoCE, "RoCE"},
                                                {Network::EFA, "EFA"},
                                                {Network::Slingshot, "Slingshot"},
                                                {Network::TCP, "TCP"}};

std::string networkTitle(Network network) {
  return std::string(enumName(std::span(kNetworkTitles), network));
}

}  // namespace

std::string describeSystem(const GpuSystem& s) {
  std::string out =
      s.ranksPerNode == s.gpusPerNode
          ? fmt::format("{} x {} per node", s.gpusPerNode, s.gpuName)
          : fmt::format("{} of {} x {} per node", s.ranksPerNode, s.gpusPerNode, s.gpuName);
  if (s.sm > 0) out += fmt::format(" (sm {})", s.sm);
  switch (s.intra) {
    case IntraFabric::NVSwitch:
    case IntraFabric::NVLink:
    case IntraFabric::XGMI:
      out += fmt::format(", {} {} links x {:.1f} GB/s = {:.1f} GB/s per GPU",
                         s.intra == IntraFabric::NVSwitch ? "NVSwitch"
                         : s.intra == IntraFabric::NVLink ? "NVLink mesh"
                                                          : "xGMI mesh",
                         s.nvlinks, s.linkBandwidth_Bps / 1e9, s.intraBandwidth_Bps() / 1e9);
      break;
    case IntraFabric::PCIe:
      out += fmt::format(", PCIe gen{} x{} = {:.0f} GB/s per GPU, {}", s.pcieGen, s.pcieLanes,
                         s.pcieBandwidth_Bps() / 1e9,
                         s.p2p ? "peer to peer" : "no peer to peer (through host memory)");
      if (s.sockets > 1) {
        out += fmt::format(", {} sockets joined at {:.0f} GB/s", s.sockets,
                           s.socketLinkBandwidth_Bps / 1e9);
      }
      break;
  }
  out += fmt::format(", {} node{}", s.nodes, s.nodes == 1 ? "" : "s");
  if (s.nicsPerNode > 0) {
    out += fmt::format(", {} x {:.0f} Gb/s {} per node", s.nicsPerNode, s.nicBandwidth_Bps * 8e-9,
                       networkTitle(s.network));
    if (s.nodes > 1) out += s.gdr ? ", GPUDirect RDMA" : ", no GPUDirect RDMA";
  }
  if (s.nvls) out += ", NVLink SHARP";
  if (s.sharp && s.nodes > 1) out += ", SHARP in the network";
  if (!s.ncclAlgo.empty()) out += ", NCCL_ALGO=" + s.ncclAlgo;
  if (!s.ncclProto.empty()) out += ", NCCL_PROTO=" + s.ncclProto;
  return out;
}

GpuSystem withRanks(const GpuSystem& system, int ranks) {
  if (ranks < 1) throwInvalid(fmt::format("p = {}: must be at least 1", ranks));
  GpuSystem s = system;
  if (ranks == s.ranks()) return s;
  const auto refuse = [&](const std::string& why) {
    throwInvalid(fmt::format(
        "p = {} does not fit the GPU system ({} GPUs per node{}): {}", ranks, system.gpusPerNode,
        system.nodesStated ? fmt::format(", {} nodes", system.nodes) : "", why));
  };
  if (system.nodesStated) {
    if (ranks % s.nodes != 0) refuse("the nodes do not divide it");
    if (ranks / s.nodes > s.gpusPerNode) refuse("more ranks per node than the node has GPUs");
    s.ranksPerNode = ranks / s.nodes;
  } else if (ranks <= s.gpusPerNode) {
    s.nodes = 1;
    s.ranksPerNode = ranks;
  } else if (ranks % s.gpusPerNode == 0) {
    s.nodes = ranks / s.gpusPerNode;
    s.ranksPerNode = s.gpusPerNode;
  } else {
    refuse("it is neither part of one node nor whole nodes; give nodes=");
  }
  if (s.nodes > 1 && s.nicsPerNode == 0)
    refuse("it spans nodes and the system has no NICs: give nics= and nic=");
  return s;
}

}  // namespace ringlab::gpu
