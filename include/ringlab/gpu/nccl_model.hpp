#pragma once
// AllReduce as NCCL runs it on a GPU system: the channels and per-channel bandwidths NCCL's
// topology search would settle on (a stated abstraction of ncclTopoCompute), the latency and
// bandwidth of every algorithm x protocol from NCCL's own tuning figures (ncclTopoTuneModel), and
// the fastest combination per size, as NCCL's tuner picks it. Beside it, the pure bound: the
// alpha-beta ring on the system's links. Pure: no I/O. It prices and never runs.
//
// Figures: NCCL 2.30.7 (github.com/NVIDIA/nccl tag v2.30.7-1): src/graph/tuning.cc (latencies,
// protocol and algorithm efficiencies, the tree correction, the ring plateau), src/graph/search.cc
// (the speed arrays, channel duplication), src/graph/topo.h (link bandwidths). kNcclFigures names
// it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/gpu/system.hpp"

namespace ringlab::gpu {

inline constexpr const char* kNcclFigures = "NCCL 2.30.7";

enum class NcclAlgorithm { Ring, Tree, CollNetDirect, CollNetChain, Nvls, NvlsTree };
enum class NcclProtocol { LL, LL128, Simple };
inline constexpr int kNcclAlgorithms = 6;
inline constexpr int kNcclProtocols = 3;
const char* ncclAlgorithmName(NcclAlgorithm algorithm);  // NCCL's: "Ring", "Tree", "NVLS", ...
const char* ncclProtocolName(NcclProtocol protocol);     // "LL", "LL128", "Simple"

// NCCL_ALGO's and NCCL_PROTO's syntax (GpuSystem::ncclAlgo, ncclProto): names separated by '+'
// (NCCL's ','), any case, all but them with a leading '^'; "collnet" is both CollNets. Indexed by
// NcclAlgorithm and NcclProtocol; all allowed for an empty list. Throws InvalidArgument naming
// an unknown name and the valid ones.
std::vector<bool> ncclAlgorithmsAllowed(std::string_view list);
std::vector<bool> ncclProtocolsAllowed(std::string_view list);

// What NCCL's search would build for one algorithm: channels x per-channel bandwidth (GB/s, as
// NCCL counts: 1e9 B/s), and whether its paths inside a node are NVLink.
struct NcclGraph {
  bool available = false;
  int channels = 0;
  double bwIntra_GBps = 0, bwInter_GBps = 0;
  bool nvlinkIntra = false;
  std::string why;  // how it was derived, or why it is not available
};

// Which resource a row's time is spent on.
enum class Regime { Latency, ProtocolSwitch, NVLink, PCIe, Network };
const char* regimeName(Regime regime);  // "latency-bound", "protocol switch", "NVLink-bound", ...

struct NcclChoice {
  NcclAlgorithm algorithm = NcclAlgorithm::Ring;
  NcclProtocol protocol = NcclProtocol::Simple;
  int channels = 0;      // the channels this size runs on (NCCL uses fewer for small sizes)
  double latency_s = 0;  // the fixed part
  double algBw_Bps = 0;  // bytes / (time - latency)
  double time_s = 0;
  // nccl-tests' bus bandwidth of that time: algbw x 2(p-1)/p.
  double busBw_Bps = 0;
};

struct NcclPrediction {
  std::uint64_t bytes = 0;
  NcclChoice chosen;                   // the fastest, as NCCL's tuner picks
  std::vector<NcclChoice> candidates;  // every enabled algorithm x protocol, fastest first
  Regime regime = Regime::Latency;
  // The pure bound: 2(p-1) alpha + 2(p-1)/p n / B on the system's links (alpha: NCCL's base
  // latency of Simple plus one hop, B: the ring's bottleneck, NVLink or the node's NICs).
  double boundTime_s = 0;
};

class NcclModel {
 public:
  // `system` as the log ran it (gpu::withRanks). Throws InvalidArgument for p < 2.
  explicit NcclModel(GpuSystem system);

  NcclPrediction predict(std::uint64_t bytes) const;
  const GpuSystem& system() const { return system_; }
  const NcclGraph& graph(NcclAlgorithm algorithm) const {
    return graphs_[static_cast<int>(algorithm)];
  }
  // The ring's bottleneck bandwidth per GPU (B of the bound) and what it is.
  double ringBottleneck_Bps() const { return bottleneck_Bps_; }
  const std::string& ringBottleneck() const { return bottleneck_; }
  // Whether the ring's bandwidth is limited by the network (else by the node's fabric).
  bool networkBound() const { return networkBound_; }
  // The table NCCL prints with NCCL_DEBUG_SUBSYS=TUNING: latency (us) and bandwidth (GB/s, its
  // algorithm bandwidth) per algorithm x protocol; bandwidth 0 where disabled.
  double latency_us(NcclAlgorithm a, NcclProtocol p) const { return latency_[idx(a)][idx(p)]; }
  double bandwidth_GBps(NcclAlgorithm a, NcclProtocol p) const {
    return bandwidth_[idx(a)][idx(p)];
  }
  // One line per graph and per assumption: what the model assumed.
  std::vector<std::string> describe() const;

 private:
  template <class E>
  static int idx(E e) {
    return static_cast<int>(e);
  }
  NcclChoice price(NcclAlgorithm a, NcclProtocol p, std::uint64_t bytes) const;

  GpuSystem system_;
  NcclGraph graphs_[kNcclAlgorithms];
  double latency_[kNcclAlgorithms][kNcclProtocols] = {};
  double bandwidth_[kNcclAlgorithms][kNcclProtocols] = {};
  int maxChannels_ = 0;
  double bottleneck_Bps_ = 0;
  std::string bottleneck_;
  bool networkBound_ = false;
  std::vector<std::string> notes_;
};

}  // namespace ringlab::gpu
