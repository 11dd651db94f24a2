#pragma once
// A GPU system as NCCL sees it: the GPUs of a node, the fabric that joins them, the nodes, and
// the NICs that join the nodes. Built from a spec a user types ("h100,gpus=8,nodes=2,nics=8,
// nic=400Gb/s"), from a named preset with its public source ("dgx-h100,nodes=4"), or from an NCCL
// topology file (gpu/from_nccl_topology.hpp). Pure data: the NCCL model (gpu/nccl_model.hpp)
// prices AllReduce on it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab::gpu {

// How the GPUs of a node reach each other.
enum class IntraFabric {
  NVSwitch,  // every GPU's NVLinks go to NVSwitches: any pair at full NVLink speed
  NVLink,    // GPU-to-GPU NVLinks without a switch (DGX-1's hybrid cube mesh, GH200 quads, bridges)
  PCIe,      // PCIe only, peer to peer through the switch or root complex, or through host memory
  XGMI       // AMD Infinity Fabric links, GPU to GPU
};
const char* intraFabricName(IntraFabric fabric);  // "nvswitch", "nvlink", "pcie", "xgmi"

// The network between nodes.
enum class Network { InfiniBand, RoCE, EFA, Slingshot, TCP };
const char* networkName(Network network);  // "ib", "roce", "efa", "slingshot", "tcp"
// The value those names stand for; none for another name.
std::optional<IntraFabric> intraFabricFromName(std::string_view name);
std::optional<Network> networkFromName(std::string_view name);

struct GpuSystem {
  std::string name;    // the preset's key, or "custom"
  std::string title;   // "NVIDIA DGX H100", "8 x H100 SXM (typed)"
  std::string source;  // where the figures come from (a preset's public source)
  std::string spec;    // the spec as given (or the file it was read from)

  std::string gpu;      // the GPU kind's key ("h100")
  std::string gpuName;  // "H100 SXM"
  int sm = 0;           // NVIDIA compute capability x 10 (90 for sm_90); 0 for AMD
  IntraFabric intra = IntraFabric::PCIe;
  int nvlinks = 0;                  // NVLinks (or xGMI links) per GPU that join it to the others
  double linkBandwidth_Bps = 0;     // one NVLink / xGMI link, one direction, NCCL's (RCCL's) figure
  int pcieGen = 4, pcieLanes = 16;  // each GPU's PCIe link (to its switch, its NIC, the CPU)
  bool p2p = true;                  // PCIe peer to peer between GPUs (else through host memory)
  int gpusPerSwitch = 1;            // GPUs sharing one PCIe switch's uplink to the CPU
  int sockets = 1;                  // CPU sockets (NUMA domains) the node's GPUs hang under
  double socketLinkBandwidth_Bps = 0;  // the link between two sockets, one direction (NCCL's)
  int gpusPerNode = 1;                 // GPUs on each node's board
  int ranksPerNode = 1;  // GPUs the job uses on each node (withRanks; else gpusPerNode)
  int nodes = 1;
  bool nodesStated = false;     // the spec named nodes= (withRanks keeps them)
  int nicsPerNode = 0;          // NICs the job uses on each node
  double nicBandwidth_Bps = 0;  // one NIC, one direction
  Network network = Network::InfiniBand;
  bool gdr = true;     // GPUDirect RDMA: the NIC reads and writes GPU memory
  bool nvls = false;   // NVLink SHARP (NVSwitch reductions; sm 90+ NVSwitch systems)
  bool sharp = false;  // in-network reductions (InfiniBand SHARP), NCCL's CollNet
  // NCCL_ALGO and NCCL_PROTO as the run set them, in NCCL's syntax with '+' for its ',' ("ring",
  // "^nvls", "ll128+simple"); empty: NCCL's defaults. The model prices only what they leave.
  std::string ncclAlgo, ncclProto;
  // What the spec or file did not say and was taken as default, one sentence each.
  std::vector<std::string> assumptions;

  int ranks() const { return ranksPerNode * nodes; }
  // Each GPU's bandwidth into its node's fabric, one direction: NVLinks x the link figure, or the
  // PCIe link (NCCL's figure: lanes x per-lane rate / 80).
  double intraBandwidth_Bps() const;
  double pcieBandwidth_Bps() const;
  // The node's network bandwidth, one direction: NICs x NIC speed.
  double nodeNetworkBandwidth_Bps() const { return nicsPerNode * nicBandwidth_Bps; }
};

// "8 x H100 SXM per node (sm 90), NVSwitch 18 NVLinks x 20.6 GB/s = 370.8 GB/s per GPU, 2 nodes,
// 8 x 400 Gb/s InfiniBand per node, GPUDirect RDMA" in one line.
std::string describeSystem(const GpuSystem& system);

// The same system with `ranks` GPUs in all, as a log ran it: `ranks` GPUs spread over the system's
// nodes when they divide evenly (ranks per node = ranks / nodes), else over as many whole nodes as
// it takes; nodes the spec stated are kept. A p below one node's GPUs uses part of one node.
// Throws InvalidArgument naming the p when no placement fits (p = 12 on nodes of 8).
GpuSystem withRanks(const GpuSystem& system, int ranks);

}  // namespace ringlab::gpu
