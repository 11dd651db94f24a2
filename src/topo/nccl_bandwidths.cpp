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

}  // namespace

double ncclNvlinkBandwidth(int sm) {
  if (sm >= 100) return 40.1 * kGB;  // SM100_NVLINK_BW
  if (sm >= 90) return 20.6 * kGB;   // SM90_NVLINK_BW
  if (sm == 86) return 12.0 * kGB;   // SM86_NVLINK_BW
  if (sm >= 70) return 20.0 * kGB;   // SM80_NVLINK_BW, SM70_NVLINK_BW
  if (sm >= 60) return 18.0 * kGB;   // SM60_NVLINK_BW
  return 20.0 * kGB;                 // NCCL's fallback: SM80_NVLINK_BW
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
  switch (cpuFigure(cpu)) {
    case CpuFigure::Power:
      return 32 * kGB;  // P9_BW
    case CpuFigure::Arm:
      return 6 * kGB;  // ARM_BW
    case CpuFigure::IntelErp:
      return 40 * kGB;  // ERP_QPI_BW
    case CpuFigure::IntelSrp:
      return 22 * kGB;  // SRP_QPI_BW
    case CpuFigure::IntelSkl:
      return 10 * kGB;  // SKL_QPI_BW
    case CpuFigure::IntelBdw:
      return 6 * kGB;  // BDW_QPI_BW
    case CpuFigure::Amd:
      return 16 * kGB;  // AMD_BW
    case CpuFigure::Yongfeng:
      return 9 * kGB;  // YONGFENG_ZPI_BW
    case CpuFigure::Zpi:
      return 6 * kGB;  // ZPI_BW
    case CpuFigure::Other:
      break;
  }
  return 5000 * kGB;  // LOC_BW: NCCL sets no limit it knows
}

std::string ncclCpuKind(const NcclCpu& cpu) {
  switch (cpuFigure(cpu)) {
    case CpuFigure::Power:
      return "POWER";
    case CpuFigure::Arm:
      return "ARM";
    case CpuFigure::IntelErp:
      return "Intel Emerald Rapids or later";
    case CpuFigure::IntelSrp:
      return "Intel Sapphire Rapids";
    case CpuFigure::IntelSkl:
      return "Intel Skylake";
    case CpuFigure::IntelBdw:
      return "Intel Broadwell";
    case CpuFigure::Amd:
      return "AMD";
    case CpuFigure::Yongfeng:
      return "Zhaoxin Yongfeng";
    case CpuFigure::Zpi:
      return "Zhaoxin";
    case CpuFigure::Other:
      break;
  }
  return "unknown CPU";
}

double ncclNetBandwidth(double speed_Mbps) {
  return (speed_Mbps <= 0 ? 10000 : speed_Mbps) / 8000.0 * kGB;
}

}  // namespace ringlab::topo
