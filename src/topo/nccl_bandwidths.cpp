#include "topo/nccl_bandwidths.hpp"

#include <cstring>

namespace ringlab::topo {
namespace {

constexpr double kGB = 1e9;

enum class CpuFigure {
  Power,
  Arm,
  IntelErp,
  IntelSrp,
  IntelSkl,
  IntelBdw,
  Amd,
  Yongfeng,
  Zpi,
  Other
};

CpuFigure cpuFigure(const NcclCpu& cpu) {
  // arch and vendor match by prefix, as NCCL's kvConvertToInt does.
  const auto starts = [](const std::string& s, const char* p) {
    return s.compare(0, std::strlen(p), p) == 0;
  };
  if (starts(cpu.arch, "ppc64")) return CpuFigure::Power;
  if (starts(cpu.arch, "arm64")) return CpuFigure::Arm;
  if (!starts(cpu.arch, "x86_64")) return CpuFigure::Other;
  if (starts(cpu.vendor, "GenuineIntel")) {
    if (cpu.family == 6 && cpu.model >= 0xCF) return CpuFigure::IntelErp;
    if (cpu.family == 6 && cpu.model >= 0x8F) return CpuFigure::IntelSrp;
    if (cpu.family == 6 && cpu.model >= 0x55) return CpuFigure::IntelSkl;
    return CpuFigure::IntelBdw;
  }
  if (starts(cpu.vendor, "AuthenticAMD")) return CpuFigure::Amd;
  if (starts(cpu.vendor, "CentaurHauls") || starts(cpu.vendor, "  Shanghai  ")) {
    return cpu.family == 7 && cpu.model == 0x5B ? CpuFigure::Yongfeng : CpuFigure::Zpi;
  }
  return CpuFigure::Other;
}

// Per CpuFigure, in its order: NCCL's inter-CPU figure in GB/s and what it is for.
struct CpuRow {
  double gbps;
  const char* kind;
};
constexpr CpuRow kCpuRows[] = {
    {32, "POWER"},                          // P9_BW
    {6, "ARM"},                             // ARM_BW
    {40, "Intel Emerald Rapids or later"},  // ERP_QPI_BW
    {22, "Intel Sapphire Rapids"},          // SRP_QPI_BW
    {10, "Intel Skylake"},                  // SKL_QPI_BW
    {6, "Intel Broadwell"},                 // BDW_QPI_BW
    {16, "AMD"},                            // AMD_BW
    {9, "Zhaoxin Yongfeng"},                // YONGFENG_ZPI_BW
    {6, "Zhaoxin"},                         // ZPI_BW
    {5000, "unknown CPU"},                  // LOC_BW: NCCL sets no limit it knows
};

}  // namespace

double ncclNvlinkBandwidth(int sm) {
  if (sm >= 100) return 40.1 * kGB;  // SM100_NVLINK_BW
  if (sm >= 90) return 20.6 * kGB;   // SM90_NVLINK_BW
  if (sm == 86) return 12.0 * kGB;   // SM86_NVLINK_BW
  if (sm >= 70) return 20.0 * kGB;   // SM80_NVLINK_BW, SM70_NVLINK_BW
  if (sm >= 60) return 18.0 * kGB;   // SM60_NVLINK_BW
  return 20.0 * kGB;                 // NCCL's fallback: SM80_NVLINK_BW
}

double rcclXgmiBandwidth(const std::string& gcn) {
  // Older RCCL writes the architecture as a number (910 for gfx90a), newer as its name.
  const std::string arch = gcn.compare(0, 3, "gfx") == 0 ? gcn.substr(3) : gcn;
  if (arch == "90a" || arch == "910") return 36.0 * kGB;  // MI200_XGMI_WIDTH
  if (arch.compare(0, 2, "94") == 0) return 48.0 * kGB;   // GFX94X_XGMI_WIDTH
  return 24.0 * kGB;                                      // VEGA_XGMI_WIDTH
}

double ncclPciBandwidth(const std::string& linkSpeed, int linkWidth) {
  // kvDictPciGen, in 100 Mb/s per lane; the first entry that prefixes the string wins.
  static const struct {
    const char* speed;
    int rate;
  } kGen[] = {{"2.5 GT/s", 15},        {"5 GT/s", 30},         {"8 GT/s", 60},
              {"16 GT/s", 120},        {"32 GT/s", 240},       {"2.5 GT/s PCIe", 15},
              {"5.0 GT/s PCIe", 30},   {"8.0 GT/s PCIe", 60},  {"16.0 GT/s PCIe", 120},
              {"32.0 GT/s PCIe", 240}, {"64.0 GT/s PCIe", 480}};
  int rate = 60;
  for (const auto& g : kGen) {
    if (linkSpeed.compare(0, std::strlen(g.speed), g.speed) == 0) {
      rate = g.rate;
      break;
    }
  }
  const int width = linkWidth == 0 ? 16 : linkWidth;
  return width * rate / 80.0 * kGB;
}

double ncclInterCpuBandwidth(const NcclCpu& cpu) {
  return kCpuRows[static_cast<int>(cpuFigure(cpu))].gbps * kGB;
}

std::string ncclCpuKind(const NcclCpu& cpu) {
  return kCpuRows[static_cast<int>(cpuFigure(cpu))].kind;
}

double ncclNetBandwidth(double speed_Mbps) {
  return (speed_Mbps <= 0 ? 10000 : speed_Mbps) / 8000.0 * kGB;
}

}  // namespace ringlab::topo
