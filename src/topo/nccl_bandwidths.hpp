#pragma once
// NCCL's own bandwidth figures for the parts of a node its topology files describe, so that an
// imported file is priced as NCCL prices it. Source: NCCL 2.30.7 (github.com/NVIDIA/nccl),
// src/graph/topo.h (SM*_NVLINK_BW, *_QPI_BW, AMD_BW, ZPI_BW, P9_BW, ARM_BW, LOC_BW, NET_BW and
// ncclTopoNVLinkBw) and src/graph/topo.cc (kvDictPciGen, ncclTopoAddPci's width x speed / 80,
// ncclTopoGetInterCpuBw, ncclTopoAddNet's speed / 8000). NCCL's GB/s are 1e9 bytes per second;
// these return bytes per second. Internal to the topo layer.
#include <string>

namespace ringlab::topo {

// One NVLink of a GPU of compute capability `sm` (80 for sm_80): 18 GB/s for sm 6x, 20 for 7x
// and 8x except 12 for sm 86, 20.6 for 9x, 40.1 for 10x and later; below 60, NCCL's SM80 figure.
double ncclNvlinkBandwidth(int sm);

// One xGMI link of an AMD GPU whose RCCL topology file gives `gcn` ("gfx942", or the older
// numeric "940", "910"): 36 GB/s for MI200 (gfx90a, "910"), 48 for gfx94x, 24 (Vega) otherwise.
// Source: RCCL (github.com/ROCm/rccl at 0cbce2a7, 2024-10), src/graph/topo.h, ncclTopoXGMISpeed
// and *_XGMI_WIDTH.
double rcclXgmiBandwidth(const std::string& gcn);

// A PCIe link from sysfs's strings: NCCL's per-lane rate for link_speed ("16.0 GT/s PCIe",
// "16 GT/s": 120 x 100 Mb/s; unknown or empty: 60) times link_width (0 counts as 16), / 80.
double ncclPciBandwidth(const std::string& linkSpeed, int linkWidth);

// The CPU element's attributes NCCL reads for its inter-socket link.
struct NcclCpu {
  std::string arch;    // x86_64, arm64, ppc64
  std::string vendor;  // GenuineIntel, AuthenticAMD, CentaurHauls, "  Shanghai  "
  int family = 0;
  int model = 0;
};

// The link between two CPU sockets (NUMA domains) as NCCL sets it from the first one: POWER 32,
// ARM 6, Intel by model (Emerald Rapids and later 40, Sapphire Rapids 22, Skylake 10, Broadwell
// 6), AMD 16, Zhaoxin 6 (Yongfeng 9) GB/s; anything else NCCL's local 5000 GB/s (no limit).
double ncclInterCpuBandwidth(const NcclCpu& cpu);
// Which of the figures above applies: "Intel Sapphire Rapids", "AMD", "unknown CPU" ...
std::string ncclCpuKind(const NcclCpu& cpu);

// A network device's `speed` in Mb/s (<= 0: NCCL's 10000).
double ncclNetBandwidth(double speed_Mbps);
// NCCL's NET_BW (12 GB/s, "100Gbit"): for a NIC whose file gives no speed.
inline constexpr double kNcclDefaultNetBandwidth = 12e9;

}  // namespace ringlab::topo
