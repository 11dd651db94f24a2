#pragma once
// Import of NCCL's topology XML (`<system version="1">`) and RCCL's (`version="2"`, GPU links as
// <xgmi>) for the inside of a node, in both forms NCCL reads:
//   - dumps (NCCL_TOPO_DUMP_FILE): each GPU a <gpu dev sm> with its <nvlink target count tclass>
//     (RCCL: <gpu dev gcn> with its <xgmi ...>), each NIC a <net name dev speed>;
//   - the NCCL_TOPO_FILE files cloud images ship: GPUs and NICs as <pci class="0x03..."> and
//     <pci class="0x02..."> under <cpu>, with no <gpu> or <net> (NCCL fills those from the driver
//     at run time, so the file names no NVLink and no NIC speed).
// GPUs become slots (by dev; GPUs known only by their <pci> in bus id order, as the driver
// numbers them), NICs (one per distinct <net> dev, or per NIC <pci>) become NICs.
//
// Bandwidths are NCCL's own (topo/nccl_bandwidths.hpp, from NCCL 2.30.7's src/graph/topo.h and
// topo.cc; xGMI from RCCL's). A GPU link (<nvlink> or <xgmi>) counts as NCCL counts it: to an
// NVSwitch (tclass other than a GPU's or a CPU's), to another GPU of the file, or not at all (a
// link to the GPU's own bus id or to a GPU the file does not hold connects to nothing). Each
// slot's link to its node's fabric:
//   - NVSwitch, where a GPU has an NVLink to one: its NVLinks to it x the per-link figure for
//     its sm;
//   - NVLink (xGMI), where GPU-to-GPU links join all the GPUs into one group (and no NVSwitch):
//     each GPU's links to the others, summed;
//   - PCIe otherwise: the slowest PCIe link from the GPU up to its CPU, and, where the GPUs sit
//     under two or more CPUs (NUMA domains), no more than the link between them. GPU-to-GPU links
//     that join only some GPUs (NVLink pairs, a partial mesh) become direct links between those
//     slots (count x per-link figure), which routing takes in place of the fabric.
// A file whose GPUs list no GPU link at all leaves them to the driver (NCCL asks NVML at run
// time): priced over PCIe unless NcclDriverFigures gives the count, and said so either way.
// One figure per node: the slowest GPU's. A GPU's link to a NIC is the slowest PCIe link on the
// path between them (and the inter-CPU link where the path crosses CPUs), not NVLink speed; the
// NIC's network link is its speed. A GPU sends through the NIC nearest to it in the tree (the
// deepest common ancestor; ties: the lower NIC). A NIC no GPU sends through (the second port of
// a dual-port NIC that one GPU uses, a NIC on a socket without GPUs) takes its nearest GPU's path
// and stays out of the summary's NIC figures.
//
// `nodes` copies of that node are joined by one switch (the network is not in the file). Refused
// with the element named: another version than 1 (NCCL) or 2 (RCCL), a document that is not
// <system>, no GPU (naming what the file holds instead), a <gpu> or <net> without the
// attributes above, malformed XML, a driver figure for a file that lists its GPU links.
#include <string>
#include <vector>

#include "ringlab/topo/topology.hpp"

namespace ringlab::topo {

// What NCCL asks the driver for at run time where a file leaves it out, as the user gives it.
struct NcclDriverFigures {
  // GPU links per GPU (NVLinks to NVSwitches; RCCL: xGMI links to the other GPUs, one group), for
  // a file whose GPUs list none; 0: none (PCIe only); -1: not given.
  int linksPerGpu = -1;
};

// GPU-to-GPU links between two GPUs (slots a < b) that do not join every GPU into one group.
struct NcclGpuLink {
  int a = 0, b = 0;
  int links = 0;             // NVLinks (xGMI links) between them, each way
  double bandwidth_Bps = 0;  // links x the per-link figure, each way
};

// What the import read off the file and derived from it.
struct NcclImportSummary {
  std::string format;  // "dump form" or "pci form" (GPUs and NICs as <pci>)
  bool rccl = false;   // RCCL's file (version 2, or GPU links as <xgmi>): AMD GPUs
  std::string gcn;     // RCCL: the GPUs' architecture as the file gives it ("gfx942", "910")
  std::string linkName = "NVLink";  // what a GPU link is: "NVLink" or "xGMI"
  int gpus = 0;
  int nics = 0;                    // distinct network devices
  int nicsUsed = 0;                // NICs some GPU sends through
  int sockets = 0;                 // <cpu> elements: NUMA domains, as NCCL counts CPUs
  int sm = 0;                      // the GPUs' compute capability (the lowest; 0: not in the file)
  std::string fabric;              // "NVSwitch", "NVLink", "xGMI", "PCIe"
  bool nvswitch = false;           // some GPU has an NVLink to an NVSwitch
  int nvlinksPerGpu = 0;           // GPU links that count, on the GPU with the fewest
  int ignoredNvlinks = 0;          // to the GPU's own bus id or to no GPU of the file
  double nvlinkBandwidth_Bps = 0;  // one GPU link, NCCL's (RCCL's) figure (0: no link counted)
  double linkFigure_Bps = 0;       // one GPU link at that figure, counted or not (a given count)
  double intraBandwidth_Bps = 0;   // each slot's link to the fabric
  std::vector<NcclGpuLink> gpuLinks;  // PCIe fabric: the GPU links that join only some GPUs
  bool linksLeftToDriver = false;     // the file lists no GPU link: NCCL asks the driver
  bool linksGiven = false;            // ... and NcclDriverFigures gave the count
  double nicLinkBandwidth_Bps = 0;    // the slowest link from a GPU to the NIC it uses (0: no NIC)
  double nicSpeed_Bps = 0;     // the slowest used NIC's network speed (NCCL's NET_BW if unsaid)
  bool nicSpeedKnown = false;  // every <net> gives its speed
  std::string cpuKind;         // "AMD", "Intel Sapphire Rapids", ... (the first <cpu>)
  double interSocketBandwidth_Bps = 0;   // 0: one socket
  std::vector<std::string> assumptions;  // what the file does not say and was assumed
};

struct NcclImport {
  Topology topology;
  NcclImportSummary summary;
};

NcclImport importNcclTopology(const std::string& text, const std::string& source, int nodes,
                              double networkLatency_s, const NcclDriverFigures& driver = {});

// The topology alone; its name is `source` followed by describeNcclImport's line.
Topology parseNcclTopologyXml(const std::string& text, const std::string& source, int nodes,
                              double networkLatency_s, const NcclDriverFigures& driver = {});

// "NCCL_TOPO_FILE, 8 GPUs sm 80, NVSwitch 12 NVLinks x 20 GB/s = 240 GB/s per GPU, ..." in one
// line.
std::string describeNcclImport(const NcclImportSummary& summary);

}  // namespace ringlab::topo
