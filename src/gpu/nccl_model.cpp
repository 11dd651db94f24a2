#include "ringlab/gpu/nccl_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include <fmt/format.h>

#include "gpu/nccl_figures.hpp"
#include "ringlab/core/enum_names.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::gpu {
namespace {

constexpr double kGB = 1e9;
constexpr NcclAlgorithm kAlgorithms[] = {NcclAlgorithm::Ring,          NcclAlgorithm::Tree,
                                         NcclAlgorithm::CollNetDirect, NcclAlgorithm::CollNetChain,
                                         NcclAlgorithm::Nvls,          NcclAlgorithm::NvlsTree};
constexpr NcclProtocol kProtocols[] = {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::Simple};

// NCCL's index of an algorithm in its tables (Tree 0, Ring 1, CollNetDirect 2, CollNetChain 3,
// NVLS 4, NVLSTree 5).
int ncclIndex(NcclAlgorithm a) {
  switch (a) {
    case NcclAlgorithm::Tree:
      return 0;
    case NcclAlgorithm::Ring:
      return 1;
    case NcclAlgorithm::CollNetDirect:
      return 2;
    case NcclAlgorithm::CollNetChain:
      return 3;
    case NcclAlgorithm::Nvls:
      return 4;
    case NcclAlgorithm::NvlsTree:
      return 5;
  }
  return 1;
}

int log2i(std::uint64_t n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

// Architecture row of NCCL's tables: Volta 0, Ampere 1, Hopper 2, Blackwell 3. AMD GPUs (sm 0)
// take Ampere's: RCCL tunes with figures of its own that this model does not have.
int architecture(int sm) {
  if (sm >= 100) return 3;
  if (sm >= 90) return 2;
  if (sm >= 80 || sm == 0) return 1;
  return 0;
}

std::span<const double> speeds(int sm, bool inter) {
  if (sm >= 100)
    return inter ? std::span<const double>(nccl::kSm100SpeedInter)
                 : std::span<const double>(nccl::kSm100SpeedIntra);
  if (sm >= 90)
    return inter ? std::span<const double>(nccl::kSm90SpeedInter)
                 : std::span<const double>(nccl::kSm90SpeedIntra);
  return inter ? std::span<const double>(nccl::kSpeedInter)
               : std::span<const double>(nccl::kSpeedIntra);
}

// What one GPU of the system offers the search, in NCCL's GB/s.
struct Budget {
  double perGpu = 0;   // a GPU's links to the other GPUs of its node, all together
  double maxPath = 0;  // the fastest single path a channel can take (GPU to GPU, or GPU to NIC)
  int netPorts = 0;    // NICs as rings use them (several NICs per GPU merge into one port)
  double perPort = 0;  // one port, capped by the GPU's PCIe link to it
  int ranksPerNode = 1;
  bool inter = false;
  std::string intraWhat, netWhat;

  // The channels that fit at `speed`, each taking `speed` on every link it crosses. Rings across
  // nodes enter a node through one GPU and leave through another, so each GPU forwards over
  // NVLink on (r-1)/r of them; trees and NVLS read from r-1 peers, scaled the same way.
  int channels(double speed, int maxChannels) const {
    const double scale = ranksPerNode > 1 ? double(ranksPerNode) / (ranksPerNode - 1) : 1.0;
    const bool forwardsOnly = inter;
    int c = ranksPerNode > 1
                ? static_cast<int>(std::floor(perGpu * (forwardsOnly ? scale : 1.0) / speed + 1e-9))
                : maxChannels;
    if (inter) c = std::min(c, netPorts * static_cast<int>(std::floor(perPort / speed + 1e-9)));
    return std::min(c, maxChannels);
  }
};

Budget budgetOf(const GpuSystem& s) {
  Budget b;
  b.ranksPerNode = s.ranksPerNode;
  b.inter = s.nodes > 1;
  const double link = s.linkBandwidth_Bps / kGB;
  const double pcie = s.pcieBandwidth_Bps() / kGB;
  const int r = s.ranksPerNode;
  switch (s.intra) {
    case IntraFabric::NVSwitch:
      b.perGpu = b.maxPath = s.nvlinks * link;
      b.intraWhat = fmt::format("NVSwitch, {} NVLinks x {:.1f} GB/s per GPU", s.nvlinks, link);
      break;
    case IntraFabric::NVLink:
    case IntraFabric::XGMI: {
      if (s.gpusPerNode == 1) {
        // One GPU on the board: no GPU-to-GPU links; its traffic leaves the node by PCIe.
        b.perGpu = b.maxPath = pcie;
        b.intraWhat = fmt::format("one GPU per node, {:.0f} GB/s PCIe to its NIC", pcie);
        break;
      }
      // A mesh without a switch: each GPU's links spread evenly over the other GPUs of the board;
      // a channel between two GPUs has their pair's links only.
      const double pair = s.nvlinks * link / (s.gpusPerNode - 1);
      b.maxPath = pair;
      b.perGpu = pair * std::max(1, r - 1);
      b.intraWhat = fmt::format(
          "{} mesh, {:.1f} GB/s between two GPUs, {:.1f} GB/s per GPU to the "
          "{} others in use",
          s.intra == IntraFabric::XGMI ? "xGMI" : "NVLink", pair, b.perGpu, r - 1);
      break;
    }
    case IntraFabric::PCIe: {
      double path = pcie;
      std::string what =
          fmt::format("PCIe gen{} x{}, {:.0f} GB/s per GPU", s.pcieGen, s.pcieLanes, pcie);
      if (!s.p2p && r > 1) {
        // Without peer to peer every hop goes up to the CPU and down again (NCCL's SHM): the GPUs
        // behind one switch share its uplink, and NCCL charges PCIe through an Intel CPU 1.2x
        // (paths.cc); 8 x RTX 4090, 4 per switch: 24 / (4 x 1.2) = 5 GB/s.
        path = pcie / (s.gpusPerSwitch * 1.2);
        what += fmt::format(", through host memory ({} GPU{} per switch uplink, x1.2 CPU charge)",
                            s.gpusPerSwitch, s.gpusPerSwitch == 1 ? "" : "s");
      }
      if (s.sockets > 1 && r > 1) {
        // A ring over GPUs under two sockets crosses the link between them.
        path = std::min(path, s.socketLinkBandwidth_Bps / kGB);
        what += fmt::format(", {:.0f} GB/s between sockets", s.socketLinkBandwidth_Bps / kGB);
      }
      b.perGpu = b.maxPath = path;
      b.intraWhat = what + (s.p2p ? ", peer to peer" : "");
      break;
    }
  }
  if (b.inter) {
    // NCCL takes each GPU's nearest NIC and does not merge NICs; AWS's EFA plugin
    // (aws-ofi-nccl) groups a GPU's NICs into one device of their summed speed.
    b.netPorts = std::min(s.nicsPerNode, r);
    const double perNic = s.nicBandwidth_Bps / kGB;
    const bool merge = s.network == Network::EFA && s.nicsPerNode > r;
    const double merged = merge ? perNic * s.nicsPerNode / std::max(1, b.netPorts) : perNic;
    b.perPort = std::min(merged, pcie);
    b.netWhat = fmt::format(
        "{} x {:.1f} GB/s to the network per node ({} NIC{} of {:.0f} Gb/s{}, "
        "each behind the GPU's {:.0f} GB/s PCIe link)",
        b.netPorts, b.perPort, s.nicsPerNode, s.nicsPerNode == 1 ? "" : "s", perNic * 8,
        merge ? ", merged per GPU" : "", pcie);
    b.maxPath = std::min(b.maxPath > 0 ? b.maxPath : b.perPort, b.perPort);
  }
  return b;
}

// The ring search: the highest channels x speed from the speed array, starting at the first speed
// a single path allows, stepping down while the next speed is more than 0.49 of the best found
// (ncclTopoCompute's first pass); then NCCL's channel duplication and its second pass, which raises
// the speed while the channels still fit.
NcclGraph searchRing(const GpuSystem& s, const Budget& b) {
  NcclGraph g;
  const std::span<const double> sp = speeds(s.sm, b.inter);
  const double total = b.inter ? std::min(b.perGpu, b.netPorts * b.perPort) : b.perGpu;
  std::size_t i = 0;
  while (i + 1 < sp.size() && (sp[i] > b.maxPath || sp[i] > total)) ++i;
  int bestC = 0;
  double bestS = 0;
  for (;; ++i) {
    const int c = b.channels(sp[i], nccl::kMaxRingChannels);
    if (c > 0 && c * sp[i] > bestC * bestS + 1e-9) {
      bestC = c;
      bestS = sp[i];
    }
    if (bestC * bestS >= total - 1e-9) break;
    if (i + 1 >= sp.size() || (bestC > 0 && sp[i + 1] / bestS <= 0.49)) break;
  }
  if (bestC == 0) {
    g.why = "no channel fits the links";
    return g;
  }
  std::string dup;
  if (bestS >= 25.0 && !(s.sm > 80 && bestS < 50.0 && bestC > 4)) {
    const int doubled = std::min(2 * bestC, nccl::kMaxRingChannels);
    const int divide = (doubled + bestC - 1) / bestC;
    dup = fmt::format(", duplicated from {} x {:g}", bestC, bestS);
    bestS /= divide;
    bestC = doubled;
  }
  // Second pass: a faster speed for the same channels.
  std::size_t j = 0;
  while (j + 1 < sp.size() && sp[j] > bestS + 1e-9) ++j;
  while (j > 0 && b.channels(sp[j - 1], nccl::kMaxRingChannels) >= bestC) bestS = sp[--j];
  g.available = true;
  g.channels = bestC;
  g.bwIntra_GBps = g.bwInter_GBps = bestS;
  g.nvlinkIntra = s.intra != IntraFabric::PCIe;
  g.why = fmt::format("{} channels x {:g} GB/s{}", bestC, bestS, dup);
  return g;
}

// Trees and chains run on the ring's channels (init.cc: minChannels = maxChannels = the ring's),
// at the highest speed those channels fit; on two nodes NCCL raises the speed inside the node up to
// twice the network's (search.cc's second pass), and tuning reads that one.
NcclGraph searchTree(const GpuSystem& s, const Budget& b, const NcclGraph& ring) {
  NcclGraph g;
  if (!ring.available) return g;
  const std::span<const double> sp = speeds(s.sm, b.inter);
  Budget scaled = b;
  if (!b.inter && b.ranksPerNode > 1)
    scaled.perGpu *= double(b.ranksPerNode) / (b.ranksPerNode - 1);
  std::size_t i = 0;
  while (i + 1 < sp.size() && scaled.channels(sp[i], 64) < ring.channels) ++i;
  if (scaled.channels(sp[i], 64) < ring.channels) return g;
  g.available = true;
  g.channels = ring.channels;
  g.bwInter_GBps = g.bwIntra_GBps = sp[i];
  if (b.inter && s.nodes <= 2) {
    Budget intraOnly = scaled;
    intraOnly.inter = false;
    std::size_t k = i;
    while (k > 0 && g.bwIntra_GBps < 2 * g.bwInter_GBps &&
           intraOnly.channels(sp[k - 1], 64) >= ring.channels) {
      g.bwIntra_GBps = sp[--k];
    }
  }
  g.nvlinkIntra = ring.nvlinkIntra;
  g.why = fmt::format("{} channels x {:g} GB/s inside the node{}", g.channels, g.bwIntra_GBps,
                      b.inter ? fmt::format(", {:g} GB/s over the network", g.bwInter_GBps) : "");
  return g;
}

// NVLS: one channel per GPU of the node (NCCL_MAX_NVLS_ARITY at most), each at the highest speed
// r channels fit in the GPU's NVSwitch links (scaled by r/(r-1), as for trees); on one node the
// second pass raises the "inter" speed, which bounds NVLS, up to twice the intra speed.
NcclGraph searchNvls(const GpuSystem& s, const Budget& b) {
  NcclGraph g;
  if (!s.nvls) {
    g.why = "the system has no NVLink SHARP (nvls=no, or not an sm 90+ NVSwitch system)";
    return g;
  }
  if (s.ranksPerNode < 2) {
    g.why = "one GPU per node";
    return g;
  }
  // Each head reads from every GPU and writes back through the switch: c heads take (c + 1) x
  // their speed of each GPU's NVLinks (search.cc's NVLS pattern; 8 x H100: 9 x 40 <= 370.8).
  const int c = std::min(nccl::kMaxNvlsChannels, s.ranksPerNode);
  const std::span<const double> sp = speeds(s.sm, b.inter);
  std::size_t i = 0;
  while (i + 1 < sp.size() &&
         (sp[i] * (c + 1) > b.perGpu + 1e-9 || (b.inter && sp[i] > b.perPort + 1e-9))) {
    ++i;
  }
  g.available = true;
  g.channels = c;
  g.bwIntra_GBps = g.bwInter_GBps = sp[i];
  // The second pass raises the speed toward the network (on one node, toward the switch, which
  // does not bound it), up to twice the intra speed and, across nodes, a NIC's share.
  std::size_t k = i;
  while (k > 0 && g.bwInter_GBps < 2 * g.bwIntra_GBps &&
         (!b.inter || sp[k - 1] <= b.perPort + 1e-9)) {
    g.bwInter_GBps = sp[--k];
  }
  g.nvlinkIntra = true;
  g.why = fmt::format("{} channels x {:g} GB/s inside the node, {:g} GB/s {}", c, g.bwIntra_GBps,
                      g.bwInter_GBps, b.inter ? "over the network" : "through the switch");
  return g;
}

// CollNet (SHARP in the network): one head per port; priced on the ring's per-channel speed.
NcclGraph searchCollNet(const GpuSystem& s, const Budget& b, const NcclGraph& ring) {
  NcclGraph g;
  if (!s.sharp || s.nodes < 2 || !ring.available) {
    g.why = s.nodes < 2 ? "one node" : "no in-network reduction (sharp=no)";
    return g;
  }
  g.available = true;
  g.channels = std::max(1, b.netPorts);
  g.bwIntra_GBps = g.bwInter_GBps =
      std::min(b.perPort, ring.bwIntra_GBps * ring.channels / g.channels);
  g.nvlinkIntra = ring.nvlinkIntra;
  g.why = fmt::format("{} heads x {:g} GB/s", g.channels, g.bwIntra_GBps);
  return g;
}

}  // namespace

namespace {

constexpr EnumName<NcclAlgorithm> kNcclAlgorithmNames[] = {
    {NcclAlgorithm::Ring, "Ring"},
    {NcclAlgorithm::Tree, "Tree"},
    {NcclAlgorithm::CollNetDirect, "CollNetDirect"},
    {NcclAlgorithm::CollNetChain, "CollNetChain"},
    {NcclAlgorithm::Nvls, "NVLS"},
    {NcclAlgorithm::NvlsTree, "NVLSTree"}};

}  // namespace

const char* ncclAlgorithmName(NcclAlgorithm a) {
  return enumName(std::span(kNcclAlgorithmNames), a).data();
}

namespace {

constexpr EnumName<NcclProtocol> kNcclProtocolNames[] = {
    {NcclProtocol::LL, "LL"}, {NcclProtocol::LL128, "LL128"}, {NcclProtocol::Simple, "Simple"}};

}  // namespace

const char* ncclProtocolName(NcclProtocol p) {
  return enumName(std::span(kNcclProtocolNames), p).data();
}

namespace {

constexpr EnumName<Regime> kRegimeNames[] = {{Regime::Latency, "latency-bound"},
                                             {Regime::ProtocolSwitch, "protocol switch"},
                                             {Regime::NVLink, "NVLink-bound"},
                                             {Regime::PCIe, "PCIe-bound"},
                                             {Regime::Network, "network-bound"}};

}  // namespace

const char* regimeName(Regime r) {
  return enumName(std::span(kRegimeNames), r).data();
}

namespace {

// The names NCCL_ALGO or NCCL_PROTO take, each with the indices it stands for.
struct SelectionName {
  const char* name;
  std::vector<int> indices;
};

std::vector<bool> allowedBy(std::string_view list, const std::vector<SelectionName>& names,
                            int count, const char* what) {
  std::vector<bool> allowed(count, list.empty());
  if (list.empty()) return allowed;
  const bool exclude = list.front() == '^';
  if (exclude) {
    list.remove_prefix(1);
    allowed.assign(count, true);
  }
  for (const std::string& item : splitList(list, '+')) {
    const auto it = std::find_if(names.begin(), names.end(), [&](const SelectionName& n) {
      return lowerCase(item) == lowerCase(n.name);
    });
    if (it == names.end()) {
      std::string valid;
      for (const SelectionName& n : names) valid += std::string(valid.empty() ? "" : ", ") + n.name;
      throwInvalid(
          fmt::format("{} '{}': no such name (valid: {}, joined by '+', all but them "
                      "after '^')",
                      what, item, valid));
    }
    for (int i : it->indices) allowed[i] = !exclude;
  }
  return allowed;
}

}  // namespace

std::vector<bool> ncclAlgorithmsAllowed(std::string_view list) {
  using A = NcclAlgorithm;
  const auto i = [](A a) { return static_cast<int>(a); };
  return allowedBy(list,
                   {{"Ring", {i(A::Ring)}},
                    {"Tree", {i(A::Tree)}},
                    {"CollNet", {i(A::CollNetDirect), i(A::CollNetChain)}},
                    {"CollNetDirect", {i(A::CollNetDirect)}},
                    {"CollNetChain", {i(A::CollNetChain)}},
                    {"NVLS", {i(A::Nvls)}},
                    {"NVLSTree", {i(A::NvlsTree)}}},
                   kNcclAlgorithms, "NCCL_ALGO");
}

std::vector<bool> ncclProtocolsAllowed(std::string_view list) {
  using P = NcclProtocol;
  const auto i = [](P p) { return static_cast<int>(p); };
  return allowedBy(list, {{"LL", {i(P::LL)}}, {"LL128", {i(P::LL128)}}, {"Simple", {i(P::Simple)}}},
                   kNcclProtocols, "NCCL_PROTO");
}

NcclModel::NcclModel(GpuSystem system) : system_(std::move(system)) {
  const GpuSystem& s = system_;
  const int p = s.ranks();
  if (p < 2) throwInvalid(fmt::format("p = {}: an AllReduce over GPUs needs at least 2", p));
  const Budget b = budgetOf(s);
  NcclGraph& ring = graphs_[idx(NcclAlgorithm::Ring)];
  ring = searchRing(s, b);
  if (!ring.available) {
    throwInvalid(fmt::format("the GPU system ({}): {}", describeSystem(s), ring.why));
  }
  graphs_[idx(NcclAlgorithm::Tree)] = searchTree(s, b, ring);
  graphs_[idx(NcclAlgorithm::Nvls)] = searchNvls(s, b);
  graphs_[idx(NcclAlgorithm::NvlsTree)] = graphs_[idx(NcclAlgorithm::Nvls)];
  graphs_[idx(NcclAlgorithm::CollNetDirect)] = searchCollNet(s, b, ring);
  graphs_[idx(NcclAlgorithm::CollNetChain)] = graphs_[idx(NcclAlgorithm::CollNetDirect)];
  // The channels collectives run on: twice the ring's (ncclTopoPostset), at most 32; NVLS runs
  // 16 (nvlsChannels on sm 90).
  maxChannels_ = std::min(2 * ring.channels, nccl::kMaxRingChannels);

  // The bound's bottleneck: a ring's share of each GPU's fabric links and, across nodes, of the
  // node's NICs.
  bottleneck_Bps_ = b.perGpu * kGB;
  bottleneck_ = b.intraWhat;
  if (b.inter && b.netPorts * b.perPort < b.perGpu) {
    bottleneck_Bps_ = b.netPorts * b.perPort * kGB;
    bottleneck_ = b.netWhat;
    networkBound_ = true;
  }

  const int arch = architecture(s.sm);
  const int nodes = s.nodes;
  const int index2 = nodes <= 2 ? nodes - 1 : 2;
  const int index1 = nodes == 1 ? arch : 0;  // more nodes: the CPU's row, Intel assumed
  const double llMaxBw = nccl::kLlMaxBw[index1][index2];
  const double ppn = double(p) / nodes;
  const int nsteps = 2 * (p - 1);
  const int nInterSteps = nodes > 1 ? 2 * (nodes - 1) : 0;

  const std::vector<bool> algorithmAllowed = ncclAlgorithmsAllowed(s.ncclAlgo);
  const std::vector<bool> protocolAllowed = ncclProtocolsAllowed(s.ncclProto);
  for (NcclAlgorithm a : kAlgorithms) {
    const NcclGraph& g = graphs_[idx(a)];
    if (!g.available || !algorithmAllowed[idx(a)]) continue;
    if (a == NcclAlgorithm::Nvls && nodes > 1 && !s.sharp) continue;  // NVLS across nodes: CollNet
    if (a == NcclAlgorithm::NvlsTree && nodes == 1) continue;
    if ((a == NcclAlgorithm::Nvls || a == NcclAlgorithm::NvlsTree) && g.channels < 2) continue;
    const int na = ncclIndex(a);
    const int intraHw = g.nvlinkIntra ? 0 : 1;
    for (NcclProtocol pr : kProtocols) {
      const int np = idx(pr);
      if (!protocolAllowed[np]) continue;
      const bool simple = pr == NcclProtocol::Simple;
      if ((a == NcclAlgorithm::Nvls || a == NcclAlgorithm::NvlsTree ||
           a == NcclAlgorithm::CollNetDirect || a == NcclAlgorithm::CollNetChain) &&
          !simple) {
        continue;
      }
      // LL128 by default only over NVLink inside the node, GPUDirect to the NIC, and sm 70+.
      if (pr == NcclProtocol::LL128 &&
          (!g.nvlinkIntra || (nodes > 1 && !s.gdr) || (s.sm < 70 && s.sm != 0) || s.sm == 0)) {
        continue;
      }
      double bw =
          nodes <= 2 || a == NcclAlgorithm::CollNetDirect || a == NcclAlgorithm::CollNetChain
              ? g.bwIntra_GBps
              : g.bwInter_GBps;
      if (a == NcclAlgorithm::Nvls || a == NcclAlgorithm::NvlsTree) {
        double intraBw =
            g.bwIntra_GBps * nccl::kNvlsEfficiency[arch] * (g.channels - 1) / g.channels;
        intraBw *= 2.0;  // AllReduce pipelines two operations
        const double interBw =
            g.bwInter_GBps * (nodes <= 2 && a == NcclAlgorithm::NvlsTree ? 2 : 1);
        bw = std::min(intraBw, interBw);
        if (a == NcclAlgorithm::NvlsTree)
          bw = std::min(bw, nccl::kPerChMaxNvlsTreeBw[arch][index2]);
      }
      double busBw = g.channels * bw;
      if (a == NcclAlgorithm::Ring && pr == NcclProtocol::LL) busBw = std::min(llMaxBw, busBw * .5);
      if (a == NcclAlgorithm::Ring && pr == NcclProtocol::LL128) {
        busBw = std::min(busBw * 0.92, g.channels * nccl::kPerChMaxRingLL128Bw[arch][index2]);
      }
      if (a == NcclAlgorithm::Tree) {
        busBw = std::min(busBw * .92, g.channels * nccl::kPerChMaxTreeBw[arch][index2]);
        if (pr == NcclProtocol::LL) busBw = std::min(busBw / 3.8, llMaxBw);
        if (pr == NcclProtocol::LL128) {
          busBw = std::min(busBw * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                           g.channels * nccl::kPerChMaxTreeLL128Bw[arch][index2]);
        }
        // Across nodes sm 90+ settles on the simpler tree pattern (search.cc), which NCCL
        // discounts.
        if (nodes > 1 && s.sm >= 90) busBw *= .85;
      }
      if (a == NcclAlgorithm::CollNetDirect) {
        double factor = ppn / g.channels;  // GPUs per NIC
        factor -= (factor - 1) / 2;
        busBw /= factor;
        if (s.sm >= 90) busBw *= .85;
      }
      const bool ringLike =
          a == NcclAlgorithm::Ring || a == NcclAlgorithm::Nvls || a == NcclAlgorithm::NvlsTree;
      bandwidth_[idx(a)][np] = busBw * (ringLike ? double(p) / nsteps : 0.5);

      double lat = nccl::kBaseLatency_us[na][np];
      double intraLat = nccl::kHwLatency_us[intraHw][na][np];
      // With one GPU per node, latencies are fully exposed: the tree's network latency.
      const double interLat = s.network == Network::EFA
                                  ? nccl::kEfaHopLatency_us[np]
                                  : nccl::kHwLatency_us[2][ppn == 1 ? 0 : na][np];
      switch (a) {
        case NcclAlgorithm::Ring: {
          const double netOverhead = nodes > 1 ? nccl::kNetOverhead_us * (simple ? 3 : 1) : 0;
          intraLat = std::max(intraLat, netOverhead);
          lat += (nsteps - nInterSteps) * intraLat + nInterSteps * interLat;
          break;
        }
        case NcclAlgorithm::Tree:
          lat += 2 * ((p / nodes - 1) * intraLat + log2i(nodes) * interLat);
          break;
        case NcclAlgorithm::CollNetDirect:
          lat += 2 * (std::min(1, p / nodes - 1) * intraLat + (p / nodes - 1) * 0.4) + interLat;
          break;
        case NcclAlgorithm::CollNetChain:
          lat += 2 * (p / nodes - 1) * intraLat + interLat;
          break;
        case NcclAlgorithm::Nvls:
          lat = intraLat + (nodes > 1 ? interLat : 0);
          break;
        case NcclAlgorithm::NvlsTree:
          lat += intraLat + 2 * log2i(nodes) * interLat;
          break;
      }
      latency_[idx(a)][np] = lat;
    }
  }
  bool anyLeft = false;
  for (const auto& row : bandwidth_)
    for (double bw : row) anyLeft = anyLeft || bw > 0;
  if (!anyLeft) {
    throwInvalid(
        fmt::format("the GPU system's algo={} (NCCL_ALGO) and proto={} (NCCL_PROTO) leave "
                    "nothing NCCL runs AllReduce with on {}",
                    s.ncclAlgo.empty() ? "any" : s.ncclAlgo,
                    s.ncclProto.empty() ? "any" : s.ncclProto, describeSystem(s)));
  }
  if (!s.ncclAlgo.empty() || !s.ncclProto.empty()) {
    notes_.push_back(fmt::format("only what the run's NCCL_ALGO={} and NCCL_PROTO={} leave",
                                 s.ncclAlgo.empty() ? "(any)" : s.ncclAlgo,
                                 s.ncclProto.empty() ? "(any)" : s.ncclProto));
  }
  for (NcclAlgorithm a : kAlgorithms) {
    const NcclGraph& g = graphs_[idx(a)];
    notes_.push_back(fmt::format("{}: {}", ncclAlgorithmName(a),
                                 g.available ? g.why : "not available: " + g.why));
  }
  if (nodes > 1)
    notes_.push_back(
        "the hosts' CPUs taken as Intel x86 (NCCL's LL figure and network post overhead)");
  if (s.sm == 0) {
    notes_.push_back(
        "an AMD GPU: RCCL tunes with figures of its own; priced with NCCL's sm 80 figures");
  }
}

NcclChoice NcclModel::price(NcclAlgorithm a, NcclProtocol pr, std::uint64_t bytes) const {
  NcclChoice c;
  c.algorithm = a;
  c.protocol = pr;
  double bw = bandwidth_[idx(a)][idx(pr)];
  double lat = latency_[idx(a)][idx(pr)];
  const int logSize = log2i(bytes >> 6);
  if (a == NcclAlgorithm::Tree && bytes >= 64 && logSize < 23) {
    bw *= nccl::kTreeCorrection[idx(pr)][logSize];
  }
  const int p = system_.ranks();
  if (a == NcclAlgorithm::Ring && pr == NcclProtocol::Simple && system_.nodes > 1 &&
      bytes / (std::uint64_t(maxChannels_) * p) >= 64) {
    lat *= system_.sm < 80 && system_.sm != 0 ? 1.9 : 1.4;  // the ring's plateau
  }
  c.latency_s = lat * 1e-6;
  // NCCL's tuner ranks the choices at full bandwidth (ncclTopoGetAlgoTime).
  c.algBw_Bps = bw * kGB;
  c.time_s = c.latency_s + double(bytes) / c.algBw_Bps;
  // Then it runs small sizes on fewer channels (enqueue.cc's topoGetAlgoInfo): one fewer while
  // each thread would get less than its threshold of bytes (Ring LL's threshold x p); the
  // predicted time takes the bandwidth of the channels that run.
  int nc = maxChannels_;
  if (a == NcclAlgorithm::Ring || a == NcclAlgorithm::Tree) {
    const int threshold = nccl::kThreadThreshold[idx(pr)] *
                          (a == NcclAlgorithm::Ring && pr == NcclProtocol::LL ? p : 1);
    while (nc > 1 && bytes < std::uint64_t(nc) * nccl::kMaxThreads[idx(pr)] * threshold) --nc;
  } else {
    nc = graphs_[idx(a)].channels;
  }
  c.channels = nc;
  return c;
}

NcclPrediction NcclModel::predict(std::uint64_t bytes) const {
  NcclPrediction out;
  out.bytes = bytes;
  for (NcclAlgorithm a : kAlgorithms) {
    for (NcclProtocol pr : kProtocols) {
      if (bandwidth_[idx(a)][idx(pr)] <= 0) continue;
      out.candidates.push_back(price(a, pr, bytes));
    }
  }
  std::stable_sort(out.candidates.begin(), out.candidates.end(),
                   [](const NcclChoice& x, const NcclChoice& y) { return x.time_s < y.time_s; });
  // Each candidate's time as it runs: on its channels' share of the bandwidth.
  for (NcclChoice& c : out.candidates) {
    const bool scaled = c.algorithm == NcclAlgorithm::Ring || c.algorithm == NcclAlgorithm::Tree;
    if (scaled && c.channels < maxChannels_) {
      c.algBw_Bps *= double(c.channels) / maxChannels_;
      c.time_s = c.latency_s + double(bytes) / c.algBw_Bps;
    }
    c.busBw_Bps = double(bytes) / c.time_s * 2.0 * (system_.ranks() - 1) / system_.ranks();
  }
  out.chosen = out.candidates.front();
  // The pure bound: NCCL's Simple ring step latency per hop, the ring's bottleneck for bandwidth.
  const int p = system_.ranks();
  const double alpha =
      latency_[idx(NcclAlgorithm::Ring)][idx(NcclProtocol::Simple)] * 1e-6 / (2.0 * (p - 1));
  out.boundTime_s = 2.0 * (p - 1) * alpha + 2.0 * (p - 1) / p * double(bytes) / bottleneck_Bps_;
  // The regime: latency while the fixed part is most of the time; a protocol switch near a size
  // where the chosen protocol changes; else the resource the bandwidth is limited by.
  const NcclChoice& c = out.chosen;
  if (c.latency_s >= 0.5 * c.time_s) {
    out.regime = Regime::Latency;
  } else if (c.protocol != NcclProtocol::Simple) {
    out.regime = Regime::ProtocolSwitch;
  } else if (networkBound_ && c.algorithm != NcclAlgorithm::Nvls) {
    out.regime = Regime::Network;
  } else {
    out.regime = system_.intra == IntraFabric::PCIe ? Regime::PCIe : Regime::NVLink;
  }
  return out;
}

std::vector<std::string> NcclModel::describe() const {
  return notes_;
}

}  // namespace ringlab::gpu
