#pragma once
// The GPUs a system spec can name, with the figures a spec leaves to the kind: compute capability,
// how the SXM/OAM part joins its node (NVLinks per GPU), its PCIe link, and whether its NVSwitch
// systems offer NVLink SHARP. Figures: the vendors' datasheets named in `source`; link speeds are
// NCCL's own per-link figures (topo/nccl_bandwidths.hpp), not the datasheets'. Internal to gpu.
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/gpu/system.hpp"

namespace ringlab::gpu {

struct GpuKind {
  const char* key;   // what a spec types: "h100"
  const char* name;  // "H100 SXM"
  int sm;            // 0: AMD
  IntraFabric fabric;
  int nvlinks;  // NVLinks (xGMI links) per GPU in its usual board; 0: PCIe only
  int pcieGen;
  bool nvls;             // NVLink SHARP on NVSwitch systems (NVSwitch gen 3 and later)
  double xgmiLink_GBps;  // AMD: one Infinity Fabric link, each way (0 for NVIDIA: NCCL's figure)
  const char* source;    // the datasheet the figures come from
};

const std::vector<GpuKind>& gpuKinds();
// The kind by key ("h100"), also from an nccl-tests device string ("NVIDIA H100 80GB HBM3",
// "NVIDIA A100-SXM4-80GB"); nullptr when none matches.
const GpuKind* findGpuKind(std::string_view key);
const GpuKind* gpuKindFromDeviceName(std::string_view deviceName);
// "h100, h200, ..." for error messages.
std::string gpuKindKeys();

// One NVLink (xGMI link), one direction, as NCCL (RCCL) counts it for a GPU of this kind.
double linkBandwidth(const GpuKind& kind);

}  // namespace ringlab::gpu
