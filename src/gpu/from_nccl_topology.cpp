#include "ringlab/gpu/from_nccl_topology.hpp"

#include <cmath>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/gpu/system_spec.hpp"

namespace ringlab::gpu {
namespace {

// The PCIe generation whose x16 link NCCL rates closest to `bandwidth` (gen3 12, gen4 24, gen5 48
// GB/s): the file gives the GPU-to-NIC path's figure, not the generation.
int pcieGenFor(double bandwidth_Bps) {
  int best = 4;
  double bestError = 1e300;
  for (int gen = 3; gen <= 6; ++gen) {
    GpuSystem probe;
    probe.pcieGen = gen;
    const double error = std::fabs(std::log(probe.pcieBandwidth_Bps() / bandwidth_Bps));
    if (error < bestError) {
      bestError = error;
      best = gen;
    }
  }
  return best;
}

// Whether the spec keys name `key` ("intra" in "gpu=h100,intra=nvswitch").
bool namesKey(std::string_view keys, std::string_view key) {
  for (std::size_t at = 0; at <= keys.size();) {
    const std::size_t end = std::min(keys.find(',', at), keys.size());
    const std::string_view part = keys.substr(at, end - at);
    if (part.size() > key.size() && part.substr(0, key.size()) == key && part[key.size()] == '=')
      return true;
    at = end + 1;
  }
  return false;
}

// "0-1, 2-3 (12 NVLinks each)": the groups a partial mesh joins.
std::string linkedPairs(const topo::NcclImportSummary& t) {
  std::string pairs;
  for (const topo::NcclGpuLink& l : t.gpuLinks)
    pairs += fmt::format("{}{}-{} ({} links)", pairs.empty() ? "" : ", ", l.a, l.b, l.links);
  return pairs;
}

}  // namespace

GpuSystem systemFromNcclTopology(const topo::NcclImportSummary& t, const std::string& source,
                                 std::string_view keys) {
  GpuSystem s;
  s.name = "nccl-topology";
  s.source = source;
  s.spec = source;
  s.title = fmt::format("{} ({})", source, t.format);
  s.sm = t.sm;
  s.gpuName = t.sm > 0         ? fmt::format("GPU sm {}", t.sm)
              : !t.gcn.empty() ? fmt::format("AMD GPU gcn {}", t.gcn)
                               : "GPU";
  s.gpusPerNode = s.ranksPerNode = t.gpus;
  if (t.fabric == "NVSwitch")
    s.intra = IntraFabric::NVSwitch;
  else if (t.fabric == "NVLink")
    s.intra = IntraFabric::NVLink;
  else if (t.fabric == "xGMI")
    s.intra = IntraFabric::XGMI;
  else
    s.intra = IntraFabric::PCIe;
  s.nvlinks = s.intra == IntraFabric::PCIe ? 0 : t.nvlinksPerGpu;
  s.linkBandwidth_Bps = t.linkFigure_Bps;  // also for links the user gives (nvlinks=)
  s.nvls = s.intra == IntraFabric::NVSwitch && t.sm >= 90;
  s.sockets = std::max(1, t.sockets);
  s.socketLinkBandwidth_Bps = t.interSocketBandwidth_Bps;
  if (t.nics > 0) {
    s.nicsPerNode = t.nicsUsed;  // a port or NIC no GPU sends through carries nothing
    s.nicBandwidth_Bps = t.nicSpeed_Bps;
    s.pcieGen = pcieGenFor(t.nicLinkBandwidth_Bps);
    if (!t.nicSpeedKnown) {
      s.assumptions.push_back("a NIC without its speed in the file: NCCL's 100 Gb/s (give nic=)");
    }
    s.assumptions.push_back(
        "the network taken as InfiniBand with GPUDirect RDMA (give net=, gdr=)");
  }
  if (!t.gpuLinks.empty()) {
    s.assumptions.push_back(fmt::format(
        "{} joins only GPUs {}: priced over PCIe, as a ring over all the node's GPUs runs; for a "
        "job within one group give gpus=,intra={},nvlinks=",
        t.rccl ? "xGMI" : "NVLink", linkedPairs(t), t.rccl ? "xgmi" : "nvlink"));
  }
  for (const std::string& a : t.assumptions) s.assumptions.push_back("the file: " + a);
  const std::string what = keys.empty()
                               ? fmt::format("the NCCL topology {}", source)
                               : fmt::format("the NCCL topology {} with '{}'", source, keys);
  GpuSystem refined = refineSystem(std::move(s), keys, what);
  if (refined.sm == 0 && refined.gpu.empty() && t.gcn.empty()) {
    throwInvalid(fmt::format(
        "{}: names no GPU model (its GPUs are <pci> devices: NCCL reads the model and its NVLinks "
        "from the driver); give the GPU kind beside it, e.g. gpu=h100",
        what));
  }
  // A verdict against a guessed fabric would misjudge the run by the whole NVLink factor.
  if (t.linksLeftToDriver && !namesKey(keys, "intra") && !namesKey(keys, "gpu")) {
    throwInvalid(fmt::format(
        "{}: the file lists no {} ({} asks the driver for the GPUs' links at run time); give the "
        "fabric beside it: intra=pcie, or {}",
        what, t.rccl ? "<xgmi>" : "<nvlink>", t.rccl ? "RCCL" : "NCCL",
        t.rccl ? "intra=xgmi,nvlinks=7" : "intra=nvswitch,nvlinks=18 (or the GPU kind, gpu=h100)"));
  }
  return refined;
}

}  // namespace ringlab::gpu
