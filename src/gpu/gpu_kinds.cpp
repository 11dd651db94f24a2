#include "gpu/gpu_kinds.hpp"

#include <algorithm>

#include "ringlab/core/text.hpp"
#include "topo/nccl_bandwidths.hpp"

namespace ringlab::gpu {
namespace {

// NVLinks per GPU: NVIDIA's datasheets (V100 SXM2 6, A100 SXM4 12, H100/H200 SXM5 18, B200 18);
// GeForce and data-centre PCIe cards are PCIe only here (their NVLink bridges, where they have
// one, are typed with intra=nvlink,nvlinks=N). MI300X: AMD's platform datasheet, 7 xGMI links.
const std::vector<GpuKind> kKinds = {
    {"v100", "V100 SXM2", 70, IntraFabric::NVLink, 6, 3, false, 0,
     "NVIDIA Tesla V100 datasheet (NVLink 2.0, 6 links, 300 GB/s)"},
    {"a100", "A100 SXM4", 80, IntraFabric::NVSwitch, 12, 4, false, 0,
     "NVIDIA A100 datasheet (NVLink 3.0, 12 links, 600 GB/s)"},
    {"a100-pcie", "A100 PCIe", 80, IntraFabric::PCIe, 0, 4, false, 0,
     "NVIDIA A100 datasheet (PCIe gen4)"},
    {"a10g", "A10G", 86, IntraFabric::PCIe, 0, 4, false, 0, "NVIDIA A10 datasheet (PCIe gen4)"},
    {"a6000", "RTX A6000", 86, IntraFabric::PCIe, 0, 4, false, 0,
     "NVIDIA RTX A6000 datasheet (PCIe gen4)"},
    {"rtx3090", "GeForce RTX 3090", 86, IntraFabric::PCIe, 0, 4, false, 0,
     "NVIDIA GeForce RTX 3090 specifications (PCIe gen4)"},
    {"l4", "L4", 89, IntraFabric::PCIe, 0, 4, false, 0, "NVIDIA L4 datasheet (PCIe gen4)"},
    {"l40s", "L40S", 89, IntraFabric::PCIe, 0, 4, false, 0, "NVIDIA L40S datasheet (PCIe gen4)"},
    {"rtx4090", "GeForce RTX 4090", 89, IntraFabric::PCIe, 0, 4, false, 0,
     "NVIDIA GeForce RTX 4090 specifications (PCIe gen4)"},
    {"rtx2080ti", "GeForce RTX 2080 Ti", 75, IntraFabric::PCIe, 0, 3, false, 0,
     "NVIDIA GeForce RTX 2080 Ti specifications (PCIe gen3)"},
    {"a40", "A40", 86, IntraFabric::PCIe, 0, 4, false, 0,
     "NVIDIA A40 datasheet (PCIe gen4; NVLink bridge of 4 links to one other A40)"},
    {"rtx5090", "GeForce RTX 5090", 120, IntraFabric::PCIe, 0, 5, false, 0,
     "NVIDIA GeForce RTX 5090 specifications (PCIe gen5)"},
    {"gb200", "GB200", 100, IntraFabric::NVSwitch, 18, 5, true, 0,
     "NVIDIA GB200 NVL72 datasheet (NVLink 5, 18 links, 1.8 TB/s per GPU)"},
    {"h100", "H100 SXM", 90, IntraFabric::NVSwitch, 18, 5, true, 0,
     "NVIDIA H100 datasheet (NVLink 4, 18 links, 900 GB/s)"},
    {"h100-pcie", "H100 PCIe", 90, IntraFabric::PCIe, 0, 5, false, 0,
     "NVIDIA H100 datasheet (PCIe gen5)"},
    {"h200", "H200 SXM", 90, IntraFabric::NVSwitch, 18, 5, true, 0,
     "NVIDIA H200 datasheet (NVLink 4, 900 GB/s)"},
    {"gh200", "GH200", 90, IntraFabric::NVLink, 18, 5, false, 0,
     "NVIDIA GH200 datasheet (NVLink 4, 18 links, 900 GB/s)"},
    {"b200", "B200", 100, IntraFabric::NVSwitch, 18, 5, true, 0,
     "NVIDIA DGX B200 datasheet (NVLink 5, 18 links, 1.8 TB/s)"},
    {"mi300x", "Instinct MI300X", 0, IntraFabric::XGMI, 7, 5, false, 64,
     "AMD Instinct MI300X datasheet (896 GB/s peak Infinity Fabric: 7 links, 64 GB/s each way)"},
    {"mi355x", "Instinct MI355X", 0, IntraFabric::XGMI, 7, 5, false, 76.8,
     "AMD Instinct MI355X datasheet (1075.2 GB/s peak Infinity Fabric: 7 links, 76.8 GB/s each "
     "way)"},
};

}  // namespace

const std::vector<GpuKind>& gpuKinds() {
  return kKinds;
}

const GpuKind* findGpuKind(std::string_view key) {
  const std::string k = lowerCase(key);
  for (const GpuKind& kind : kKinds)
    if (k == kind.key) return &kind;
  return nullptr;
}

const GpuKind* gpuKindFromDeviceName(std::string_view deviceName) {
  // "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA GeForce RTX 4090", "NVIDIA GH200
  // 480GB", "AMD Instinct MI300X": the first kind whose model number appears, PCIe parts first.
  const std::string name = lowerCase(deviceName);
  const auto has = [&](const char* word) { return name.find(word) != std::string::npos; };
  const bool pcie = has("pcie");
  if (has("gb200")) return findGpuKind("gb200");
  if (has("gh200")) return findGpuKind("gh200");
  if (has("h200")) return findGpuKind("h200");
  if (has("h100") || has("h800")) return findGpuKind(pcie ? "h100-pcie" : "h100");
  if (has("b200")) return findGpuKind("b200");
  if (has("a100") || has("a800")) return findGpuKind(pcie ? "a100-pcie" : "a100");
  if (has("v100")) return findGpuKind("v100");
  if (has("a10g") || has(" a10 ") || name.ends_with(" a10")) return findGpuKind("a10g");
  if (has("a6000")) return findGpuKind("a6000");
  if (has("3090")) return findGpuKind("rtx3090");
  if (has("4090")) return findGpuKind("rtx4090");
  if (has("l40s")) return findGpuKind("l40s");
  if (has(" l4")) return findGpuKind("l4");
  if (has("mi300x")) return findGpuKind("mi300x");
  if (has("mi355x")) return findGpuKind("mi355x");
  if (has("2080 ti")) return findGpuKind("rtx2080ti");
  if (has("5090")) return findGpuKind("rtx5090");
  if (has(" a40")) return findGpuKind("a40");
  return nullptr;
}

std::string gpuKindKeys() {
  std::string out;
  for (const GpuKind& kind : kKinds) out += std::string(out.empty() ? "" : ", ") + kind.key;
  return out;
}

double linkBandwidth(const GpuKind& kind) {
  // AMD's datasheet figure per xGMI link (RCCL's topology uses its own).
  if (kind.fabric == IntraFabric::XGMI) return kind.xgmiLink_GBps * 1e9;
  return topo::ncclNvlinkBandwidth(kind.sm);
}

}  // namespace ringlab::gpu
