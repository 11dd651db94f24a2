// The NCCL topology importer on real files (tests/data/nccl_topo/, sources in tests/data/README.md)
// and the ring search's lower bound on what it imports. Every expected figure is read off the
// file by hand and priced with NCCL 2.30.7's tables (src/graph/topo.h, topo.cc): NVLink per sm,
// PCIe width x rate / 80, the inter-CPU link by CPU, a NIC's speed / 8000.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "expect_error.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/gpu/from_nccl_topology.hpp"
#include "ringlab/topo/nccl_xml.hpp"
#include "ringlab/topo/placement.hpp"
#include "ringlab/topo/ring_search.hpp"

namespace ringlab::topo {
namespace {

using ringlab::test::expectInvalid;

constexpr double kGB = 1e9;

std::string dataText(const std::string& file) {
  return readTextFile(std::string(RINGLAB_TEST_DATA) + "/nccl_topo/" + file, "test");
}

NcclImport load(const std::string& file, int nodes = 1, NcclDriverFigures driver = {}) {
  return importNcclTopology(dataText(file), file, nodes, 2e-6, driver);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The ring AllReduce over the first p slots of node 0, as the search prices it: 2(p-1) steps of
// one chunk (bytes / p) over the slowest link of the ring, plus each step's latency.
double ringOverFirstSlots(const Topology& t, int p, double bytes) {
  RingSearchOptions options;
  options.bytes = bytes;
  return searchRings(t, Placement::block(t, p), options).cost.time_s;
}

double linkBandwidth(const Topology& t, int from, int to) {
  const int l = t.linkBetween(from, to);
  EXPECT_GE(l, 0);
  return l < 0 ? 0 : t.links()[l].bandwidth_Bps;
}

// Each slot's fabric link and its link to the NIC it sends through, on node 0.
void expectNodeLinks(const NcclImport& in, double intra, double nicLink) {
  const Node& n = in.topology.nodes()[0];
  ASSERT_EQ(static_cast<int>(n.slots.size()), in.summary.gpus);
  for (std::size_t s = 0; s < n.slots.size(); ++s) {
    EXPECT_DOUBLE_EQ(linkBandwidth(in.topology, n.slots[s], n.fabric), intra) << "slot " << s;
    if (!n.nics.empty()) {
      EXPECT_DOUBLE_EQ(linkBandwidth(in.topology, n.slots[s], n.nics[n.slotNic[s]]), nicLink);
    }
  }
}

std::string nicOf(const NcclImport& in, int slot) {
  const Node& n = in.topology.nodes()[0];
  return in.topology.vertices()[n.nics[n.slotNic[slot]]].name;
}

// Azure NDv4 (NCCL_TOPO_FILE): 8 GPU and 8 InfiniBand <pci> in pairs under one PCIe switch per
// NUMA domain, 4 AMD domains, "16 GT/s" x16 everywhere, no <gpu>, no NVLink, no NIC speed.
TEST(NcclTopoFiles, AzureNdv4PciFormIsAPcieBoxOfFourAmdDomains) {
  const NcclImport in = load("azure_ndv4-topo.xml");
  const NcclImportSummary& s = in.summary;
  EXPECT_EQ(s.format, "pci form");
  EXPECT_EQ(s.gpus, 8);
  EXPECT_EQ(s.nics, 8);
  EXPECT_EQ(s.sockets, 4);
  EXPECT_EQ(s.sm, 0);
  EXPECT_FALSE(s.nvswitch);
  EXPECT_EQ(s.nvlinksPerGpu, 0);
  EXPECT_EQ(s.fabric, "PCIe");
  EXPECT_EQ(s.cpuKind, "AMD");
  EXPECT_DOUBLE_EQ(s.interSocketBandwidth_Bps, 16 * kGB);  // AMD_BW
  // 16 x 120 / 80 = 24 GB/s per GPU, but a ring over 4 domains crosses AMD's 16 GB/s.
  expectNodeLinks(in, 16 * kGB, 24 * kGB);
  // Slots in bus order (0001, 0002 under cpu 1 ...); each sends through the NIC beside it.
  EXPECT_EQ(nicOf(in, 0), "n0.0101:00:00.0");
  EXPECT_EQ(nicOf(in, 1), "n0.0102:00:00.0");
  EXPECT_EQ(nicOf(in, 2), "n0.0103:00:00.0");
  EXPECT_EQ(nicOf(in, 7), "n0.0108:00:00.0");
  ASSERT_EQ(s.assumptions.size(), 2u);
  EXPECT_NE(s.assumptions[1].find("NIC speed not in the file"), std::string::npos);
}

// Azure NDv5: 8 GPU + 8 NIC <pci> pairs, one PCIe switch each, "32.0 GT/s PCIe" x16, two Intel
// family 6 model 143 (Sapphire Rapids) domains.
TEST(NcclTopoFiles, AzureNdv5TwoSapphireRapidsSockets) {
  const NcclImport in = load("azure_ndv5-topo.xml");
  EXPECT_EQ(in.summary.gpus, 8);
  EXPECT_EQ(in.summary.nics, 8);
  EXPECT_EQ(in.summary.sockets, 2);
  EXPECT_FALSE(in.summary.nvswitch);
  EXPECT_EQ(in.summary.cpuKind, "Intel Sapphire Rapids");
  EXPECT_DOUBLE_EQ(in.summary.interSocketBandwidth_Bps, 22 * kGB);  // SRP_QPI_BW
  expectNodeLinks(in, 22 * kGB, 48 * kGB);                          // 16 x 240 / 80 = 48
  for (int g = 0; g < 8; ++g) EXPECT_EQ(in.topology.nodes()[0].slotNic[g], g);
}

// Azure NC A100 v4: a PCIe box whose dump lists, for each of 4 A100s (sm 80), 12 NVLinks to its
// own bus id; empty link_speed and width 0 (NCCL: 60 x 16 / 80 = 12 GB/s); a socket NIC eth0 at
// 100000 Mb/s under the first of 4 AMD domains.
TEST(NcclTopoFiles, AzureNcv4SelfNvlinksLeaveAPcieBox) {
  const NcclImport in = load("azure_ncv4-topo.xml", 2);
  const NcclImportSummary& s = in.summary;
  EXPECT_EQ(s.format, "dump form");
  EXPECT_EQ(s.gpus, 4);
  EXPECT_EQ(s.nics, 1);
  EXPECT_EQ(s.sockets, 4);
  EXPECT_EQ(s.sm, 80);
  EXPECT_FALSE(s.nvswitch);
  EXPECT_EQ(s.fabric, "PCIe");
  EXPECT_EQ(s.nvlinksPerGpu, 0);
  EXPECT_EQ(s.ignoredNvlinks, 48);
  EXPECT_DOUBLE_EQ(s.nvlinkBandwidth_Bps, 0);
  expectNodeLinks(in, 12 * kGB, 12 * kGB);  // not 12 x 20 = 240 GB/s of NVSwitch
  const int up =
      in.topology.linkBetween(in.topology.findVertex("n0.eth0"), in.topology.findVertex("switch"));
  ASSERT_GE(up, 0);
  EXPECT_DOUBLE_EQ(in.topology.links()[up].bandwidth_Bps, 12.5 * kGB);  // 100000 / 8000
  EXPECT_NE(describeNcclImport(s).find("48 NVLinks to the GPU's own bus id"), std::string::npos);
}

// AWS p4d.24xlarge (NCCL_TOPO_FILE): 4 PCIe switches, each with 2 GPUs and 1 EFA (class
// 0x020000), "8 GT/s" x16 (12 GB/s), two Intel family 6 model 85 (Skylake) domains.
TEST(NcclTopoFiles, AwsP4dFourEfaNicsTwoSkylakeSockets) {
  const NcclImport in = load("aws_p4d-24xl-topo.xml");
  EXPECT_EQ(in.summary.gpus, 8);
  EXPECT_EQ(in.summary.nics, 4);
  EXPECT_EQ(in.summary.sockets, 2);
  EXPECT_FALSE(in.summary.nvswitch);
  EXPECT_EQ(in.summary.cpuKind, "Intel Skylake");
  EXPECT_DOUBLE_EQ(in.summary.interSocketBandwidth_Bps, 10 * kGB);  // SKL_QPI_BW
  expectNodeLinks(in, 10 * kGB, 12 * kGB);
  EXPECT_EQ(in.topology.nodes()[0].slotNic, (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
}

// AWS g5.48xlarge: only bus ids, no class (NCCL fills them in at run time): nothing to place on.
TEST(NcclTopoFiles, AwsG5WithoutClassesIsRefusedSayingWhy) {
  expectInvalid([] { load("aws_g5.48xl-topo.xml"); },
                {"aws_g5.48xl-topo.xml", "no GPU", "9 <pci> without a class"});
}

// Azure NDv2: 8 GPU <pci> ("16 GT/s" x16) and one InfiniBand <pci>, all right under 2 Skylake
// domains.
TEST(NcclTopoFiles, AzureNdv2OneNicTwoSockets) {
  const NcclImport in = load("azure_ndv2-topo.xml");
  EXPECT_EQ(in.summary.gpus, 8);
  EXPECT_EQ(in.summary.nics, 1);
  EXPECT_EQ(in.summary.sockets, 2);
  // GPUs on the second domain reach the NIC across Skylake's 10 GB/s.
  expectNodeLinks(in, 10 * kGB, 10 * kGB);
}

// HGX B200 dump (sm 100): every GPU 18 NVLinks to the NVSwitch fabric (one bridge-class target),
// the socket NIC eth0 (dev 0, 10000 Mb/s) listed under both Intel family 6 model 207 domains.
TEST(NcclTopoFiles, HgxB200NvswitchAtNcclsSm100Figure) {
  const NcclImport in = load("hgx_b200_dump.xml", 2);
  const NcclImportSummary& s = in.summary;
  EXPECT_EQ(s.gpus, 8);
  EXPECT_EQ(s.nics, 1);  // one device, listed twice
  EXPECT_EQ(s.sockets, 2);
  EXPECT_EQ(s.sm, 100);
  EXPECT_TRUE(s.nvswitch);
  EXPECT_EQ(s.fabric, "NVSwitch");
  EXPECT_EQ(s.nvlinksPerGpu, 18);
  EXPECT_DOUBLE_EQ(s.nvlinkBandwidth_Bps, 40.1 * kGB);     // SM100_NVLINK_BW
  EXPECT_DOUBLE_EQ(s.interSocketBandwidth_Bps, 40 * kGB);  // ERP_QPI_BW
  // Each GPU reaches the eth0 of its own domain over PCIe Gen5 x16 (48 GB/s).
  expectNodeLinks(in, 18 * 40.1 * kGB, 48 * kGB);
  const int up =
      in.topology.linkBetween(in.topology.findVertex("n1.eth0"), in.topology.findVertex("switch"));
  ASSERT_GE(up, 0);
  EXPECT_DOUBLE_EQ(in.topology.links()[up].bandwidth_Bps, 1.25 * kGB);
}

// HGX H200 dump (sm 90): 4 + 5 + 5 + 4 NVLinks to four NVSwitches per GPU.
TEST(NcclTopoFiles, HgxH200NvswitchAtNcclsSm90Figure) {
  const NcclImport in = load("hgx_h200_dump.xml");
  EXPECT_EQ(in.summary.gpus, 8);
  EXPECT_EQ(in.summary.nics, 1);
  EXPECT_EQ(in.summary.sockets, 2);
  EXPECT_TRUE(in.summary.nvswitch);
  EXPECT_EQ(in.summary.nvlinksPerGpu, 18);
  EXPECT_DOUBLE_EQ(in.summary.nvlinkBandwidth_Bps, 20.6 * kGB);  // SM90_NVLINK_BW
  expectNodeLinks(in, 18 * 20.6 * kGB, 48 * kGB);
}

// Perlmutter GPU node dump: 4 A100 (sm 80), each joined to each other by 4 NVLinks, no NVSwitch;
// 4 Slingshot NICs (200000 Mb/s, "16.0 GT/s PCIe" x16), one per AMD domain, in the reverse order
// of the GPUs.
TEST(NcclTopoFiles, PerlmutterGpuToGpuNvlinksWithoutNvswitch) {
  const NcclImport in = load("perlmutter_a100_dump.xml", 2);
  const NcclImportSummary& s = in.summary;
  EXPECT_EQ(s.gpus, 4);
  EXPECT_EQ(s.nics, 4);
  EXPECT_EQ(s.sockets, 4);
  EXPECT_FALSE(s.nvswitch);
  EXPECT_EQ(s.fabric, "NVLink");
  EXPECT_EQ(s.nvlinksPerGpu, 12);
  EXPECT_EQ(s.ignoredNvlinks, 0);
  EXPECT_DOUBLE_EQ(s.nvlinkBandwidth_Bps, 20 * kGB);
  expectNodeLinks(in, 12 * 20 * kGB, 24 * kGB);
  EXPECT_EQ(in.topology.nodes()[0].slotNic, (std::vector<int>{3, 2, 1, 0}));
  EXPECT_EQ(in.topology.vertices()[in.topology.nodes()[0].nics[0]].name, "n0.cxi0");
}

// Ours: two sm 86 GPUs joined by 4 NVLinks (an NVLink bridge), as an A6000 pair dumps.
TEST(NcclTopoFiles, Sm86NvlinkAtNcclsTwelveGBs) {
  const std::string xml = R"(<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">
    <pci busid="0000:17:00.0" class="0x030000" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="86" rank="0"><nvlink target="0000:65:00.0" count="4" tclass="0x030000"/></gpu>
    </pci>
    <pci busid="0000:65:00.0" class="0x030000" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="1" sm="86" rank="1"><nvlink target="0000:17:00.0" count="4" tclass="0x030000"/></gpu>
    </pci>
  </cpu>
</system>)";
  const NcclImport in = importNcclTopology(xml, "a6000.xml", 1, 0);
  EXPECT_EQ(in.summary.fabric, "NVLink");
  EXPECT_DOUBLE_EQ(in.summary.nvlinkBandwidth_Bps, 12 * kGB);  // SM86_NVLINK_BW, not 20
  expectNodeLinks(in, 4 * 12 * kGB, 0);
  // Without the bridge the same GPUs are a PCIe pair (16 x 120 / 80 = 24 GB/s).
  std::string bare = xml;
  for (std::size_t at; (at = bare.find("<nvlink")) != std::string::npos;)
    bare.erase(at, bare.find("/>", at) + 2 - at);
  const NcclImport pcie = importNcclTopology(bare, "a6000.xml", 1, 0);
  EXPECT_EQ(pcie.summary.fabric, "PCIe");
  expectNodeLinks(pcie, 24 * kGB, 0);
}

// What the importer needs and does not find, named.
TEST(NcclTopoFiles, RefusesWhatItCannotPrice) {
  const auto gpu = [](const std::string& inside, const std::string& nvlink) {
    return R"(<system version="1"><cpu numaid="0">)" + inside + R"(<gpu dev="0" sm="80">)" +
           nvlink + "</gpu>" + (inside.empty() ? "" : "</pci>") + "</cpu></system>";
  };
  const std::string pci = R"(<pci busid="0000:01:00.0" class="0x030200">)";
  expectInvalid([&] { importNcclTopology(gpu("", ""), "t.xml", 1, 0); },
                {"t.xml", "<gpu dev=\"0\"> is not inside a <pci>"});
  expectInvalid([&] { importNcclTopology(gpu(pci, R"(<nvlink count="2"/>)"), "t.xml", 1, 0); },
                {"t.xml", "<nvlink> has no 'tclass' attribute"});
  expectInvalid(
      [&] { importNcclTopology(gpu(pci, R"(<nvlink tclass="0x030200"/>)"), "t.xml", 1, 0); },
      {"<nvlink> has no 'count' attribute"});
  expectInvalid([] { importNcclTopology(R"(<system version="1"/>)", "e.xml", 1, 0); },
                {"e.xml", "no GPU"});
  expectInvalid([&] { importNcclTopology(gpu(pci, ""), "t.xml", 0, 0); }, {"0 nodes", ">= 1"});
}

// The search's lower bound counts a rank's link to its own NIC (routing uses no other), at the
// bandwidth imported for it: on two NC A100 v4 nodes every ring leaves each node through one
// GPU's 12 GB/s PCIe path, so no ring beats 2(p-1) x chunk / 12 GB/s.
TEST(NcclTopoFiles, LowerBoundPricesGpuToNicLinksAsImported) {
  const NcclImport in = load("azure_ncv4-topo.xml", 2);
  const Placement rr = Placement::roundRobin(in.topology, 8);
  const double bytes = 64.0 * 1024 * 1024;
  const double bound = ringLowerBound(in.topology, rr, bytes, 1);
  const double chunk = bytes / 8;
  EXPECT_GE(bound, 2 * 7 * chunk / (12 * kGB));
  RingSearchOptions options;
  options.bytes = bytes;
  const RingSearchResult found = searchRings(in.topology, rr, options);
  EXPECT_LE(bound, found.cost.time_s * (1 + 1e-12));
}

// Azure NCv4 as azhpc-images shipped it in April 2023: 4 PCIe A100s, one per AMD domain, joined in
// two NVLink pairs (0-1 and 2-3, 12 NVLinks each way), no NVSwitch. A ring over one pair runs over
// its 12 x 20 GB/s = 240 GB/s; a ring over all four crosses the sockets over PCIe.
TEST(NcclTopoFiles, NvlinkPairsAreDirectLinksARingOverOnePairRunsOver) {
  const NcclImport in = load("azure_ncv4_nvlink_pairs-topo.xml");
  const NcclImportSummary& s = in.summary;
  EXPECT_EQ(s.fabric, "PCIe");
  EXPECT_FALSE(s.linksLeftToDriver);
  ASSERT_EQ(s.gpuLinks.size(), 2u);
  EXPECT_EQ(s.gpuLinks[0].a, 0);
  EXPECT_EQ(s.gpuLinks[0].b, 1);
  EXPECT_EQ(s.gpuLinks[0].links, 12);
  EXPECT_DOUBLE_EQ(s.gpuLinks[0].bandwidth_Bps, 240 * kGB);
  EXPECT_EQ(s.gpuLinks[1].a, 2);
  EXPECT_EQ(s.gpuLinks[1].b, 3);
  EXPECT_TRUE(has(describeNcclImport(s), "NVLink joins only some GPUs: 0-1 12 NVLinks = 240 GB/s"));
  const Node& n = in.topology.nodes()[0];
  EXPECT_DOUBLE_EQ(linkBandwidth(in.topology, n.slots[0], n.slots[1]), 240 * kGB);
  EXPECT_EQ(in.topology.linkBetween(n.slots[1], n.slots[2]), -1);
  const double bytes = 256.0 * 1024 * 1024;
  // 2 steps of bytes / 2 over the pair's 240 GB/s and its 1 us.
  const double pair = 2 * (bytes / 2 / (240 * kGB) + 1e-6);
  EXPECT_NEAR(ringOverFirstSlots(in.topology, 2, bytes), pair, pair * 1e-9);
  // The same two GPUs through the fabric would take 12 GB/s (the file's link_width="0": x16 gen3).
  EXPECT_GT(ringOverFirstSlots(in.topology, 4, bytes), 10 * pair);
  const Placement pairOnly = Placement::block(in.topology, 2);
  RingSearchOptions options;
  options.bytes = bytes;
  EXPECT_LE(ringLowerBound(in.topology, pairOnly, bytes, 1),
            searchRings(in.topology, pairOnly, options).cost.time_s * (1 + 1e-12));

  const gpu::GpuSystem g = gpu::systemFromNcclTopology(s, "ncv4.xml", "");
  EXPECT_EQ(g.intra, gpu::IntraFabric::PCIe);
  bool said = false;
  for (const std::string& a : g.assumptions)
    said = said || (has(a, "NVLink joins only GPUs 0-1 (12 links), 2-3 (12 links)") &&
                    has(a, "intra=nvlink"));
  EXPECT_TRUE(said);
}

// NVIDIA/nccl#2397's dump: two PCIe A100s on two Ice Lake sockets whose <gpu> list no <nvlink>
// (NCCL asks NVML at run time), and one dual-port ConnectX (mlx5_0 port 1, mlx5_1 port 2, one PCI
// device, x8 gen4: 12 GB/s). Priced over PCIe only with that said, or with the count given.
TEST(NcclTopoFiles, GpuLinksLeftToTheDriverAreSaidAndCanBeGiven) {
  const NcclImport pcie = load("nccl2397_a100pcie_dual_port_dump.xml");
  EXPECT_TRUE(pcie.summary.linksLeftToDriver);
  EXPECT_FALSE(pcie.summary.linksGiven);
  EXPECT_EQ(pcie.summary.fabric, "PCIe");
  EXPECT_DOUBLE_EQ(pcie.summary.intraBandwidth_Bps, 10 * kGB);  // Ice Lake: NCCL's Skylake 10
  const std::string line = describeNcclImport(pcie.summary);
  EXPECT_TRUE(has(line, "the file lists no <nvlink> (NCCL asks the driver")) << line;
  EXPECT_TRUE(has(line, "priced over PCIe as if they had none")) << line;
  // Each GPU sends through its own port: GPU 0 beside the NIC (12), GPU 1 across the sockets (10).
  EXPECT_EQ(pcie.summary.nicsUsed, 2);
  EXPECT_DOUBLE_EQ(pcie.summary.nicLinkBandwidth_Bps, 10 * kGB);

  const NcclImport given = load("nccl2397_a100pcie_dual_port_dump.xml", 1, {12});
  EXPECT_TRUE(given.summary.linksGiven);
  EXPECT_EQ(given.summary.fabric, "NVSwitch");
  EXPECT_DOUBLE_EQ(given.summary.intraBandwidth_Bps, 12 * 20 * kGB);  // 12 x sm 80's 20 GB/s
  EXPECT_TRUE(has(describeNcclImport(given.summary), "12 NVLinks per GPU as given"));
  const NcclImport none = load("nccl2397_a100pcie_dual_port_dump.xml", 1, {0});
  EXPECT_EQ(none.summary.fabric, "PCIe");
  EXPECT_FALSE(has(describeNcclImport(none.summary), "as if they had none"));
  expectInvalid([] { load("hgx_h200_dump.xml", 1, {18}); },
                {"hgx_h200_dump.xml", "lists its GPUs' links", "leaves them to the driver"});

  // The GPU system refuses to guess the fabric, and takes it from the spec keys.
  expectInvalid([&] { gpu::systemFromNcclTopology(pcie.summary, "a100.xml", ""); },
                {"a100.xml", "lists no <nvlink>", "intra=pcie", "intra=nvswitch,nvlinks=18"});
  const gpu::GpuSystem g = gpu::systemFromNcclTopology(pcie.summary, "a100.xml", "intra=pcie");
  EXPECT_EQ(g.intra, gpu::IntraFabric::PCIe);
  const gpu::GpuSystem nv =
      gpu::systemFromNcclTopology(pcie.summary, "a100.xml", "intra=nvswitch,nvlinks=12");
  EXPECT_EQ(nv.intra, gpu::IntraFabric::NVSwitch);
  EXPECT_DOUBLE_EQ(nv.intraBandwidth_Bps(), 12 * 20 * kGB);
}

// ROCm/rccl#1185's RCCL dump (version 2): 8 GPUs (class 0x038000) with no <xgmi>, two dual-port
// ConnectX-6 (one beside GPU 3, one beside GPU 6) and a dual-port 10 Gb/s NIC on a socket without
// GPUs. The ports no GPU sends through stay out of the NIC figures: GPU-NIC is the 24 GB/s of the
// x16 gen4 path, not the unused NIC's 6 GB/s (x8 gen3), and the network speed is 200 Gb/s.
TEST(NcclTopoFiles, DualPortNicsAndUnusedNicsDoNotSetTheNicFigures) {
  const NcclImport in = load("rccl1185_dcu_dual_port_dump.xml");
  const NcclImportSummary& s = in.summary;
  EXPECT_TRUE(s.rccl);
  EXPECT_EQ(s.gpus, 8);
  EXPECT_EQ(s.sm, 0);  // an AMD file's sm is not a compute capability
  EXPECT_EQ(s.nics, 6);
  EXPECT_EQ(s.nicsUsed, 4);
  EXPECT_DOUBLE_EQ(s.nicLinkBandwidth_Bps, 24 * kGB);
  EXPECT_DOUBLE_EQ(s.nicSpeed_Bps, 25 * kGB);
  const std::string line = describeNcclImport(s);
  EXPECT_TRUE(has(line, "6 NICs (4 used by the GPUs)")) << line;
  EXPECT_TRUE(has(line, "GPU-NIC 24 GB/s")) << line;
  EXPECT_TRUE(has(line, "the file lists no <xgmi> (RCCL asks the driver")) << line;
  // Both ports of the NIC beside GPU 3 (mlx5_0, mlx5_1) carry the same x16 gen4 path.
  const Node& n = in.topology.nodes()[0];
  for (int k = 0; k < 2; ++k)
    EXPECT_DOUBLE_EQ(linkBandwidth(in.topology, n.slots[3], n.nics[k]), 24 * kGB);

  const gpu::GpuSystem g = gpu::systemFromNcclTopology(s, "dcu.xml", "intra=pcie");
  EXPECT_EQ(g.nicsPerNode, 4);
  EXPECT_DOUBLE_EQ(g.nicBandwidth_Bps, 25 * kGB);
  expectInvalid([&] { gpu::systemFromNcclTopology(s, "dcu.xml", ""); },
                {"lists no <xgmi>", "RCCL", "intra=xgmi"});
}

// RCCL's MI300X model (ROCm/rccl tools/topo_expl/models/topo_8p_940.xml, version 2): 8 gfx942
// GPUs each with one xGMI link to each of the 7 others, RCCL's 48 GB/s per link: 7 x 48 = 336.
// Relabelled as version 1, the links are still read.
TEST(NcclTopoFiles, RcclXgmiMeshAtRcclsFigure) {
  for (const char* version : {"2", "1"}) {
    std::string text = dataText("rccl_topo_8p_940.xml");
    text.replace(text.find("<system version=\"2\">"), 20,
                 std::string("<system version=\"") + version + "\">");
    const NcclImport in = importNcclTopology(text, "mi300x.xml", 1, 2e-6);
    const NcclImportSummary& s = in.summary;
    EXPECT_TRUE(s.rccl) << version;
    EXPECT_EQ(s.gcn, "gfx942");
    EXPECT_EQ(s.fabric, "xGMI") << version;
    EXPECT_EQ(s.nvlinksPerGpu, 7);
    EXPECT_DOUBLE_EQ(s.nvlinkBandwidth_Bps, 48 * kGB);
    EXPECT_DOUBLE_EQ(s.intraBandwidth_Bps, 336 * kGB) << version;
    EXPECT_TRUE(has(describeNcclImport(s), "RCCL topology (dump form): 8 GPUs gcn gfx942"));
    EXPECT_TRUE(has(describeNcclImport(s), "xGMI fabric 7 xGMI links x 48 GB/s = 336 GB/s"));
    const gpu::GpuSystem g = gpu::systemFromNcclTopology(s, "mi300x.xml", "");
    EXPECT_EQ(g.intra, gpu::IntraFabric::XGMI);
    EXPECT_EQ(g.nvlinks, 7);
    EXPECT_DOUBLE_EQ(g.intraBandwidth_Bps(), 336 * kGB);
  }
  // The older numeric gcn ("940", topo_4p_940.xml): 3 links x 48 GB/s.
  EXPECT_DOUBLE_EQ(load("rccl_topo_4p_940.xml").summary.intraBandwidth_Bps, 144 * kGB);
  std::string v3 = dataText("rccl_topo_4p_940.xml");
  v3.replace(v3.find("version=\"2\""), 11, "version=\"3\"");
  expectInvalid([&] { importNcclTopology(v3, "v3.xml", 1, 0); },
                {"v3.xml", "version 3", "NCCL's version 1 and RCCL's version 2"});
}

// A slot with two NICs sends through one: the bound is that link's, not the sum of both.
TEST(NcclTopoFiles, LowerBoundUsesOnlyTheNicASlotSendsThrough) {
  Topology t("two NICs");
  for (const char* name : {"a", "b"}) {
    const int node = t.addNode(name, 1, {100 * kGB, 0, 0});
    t.addNic(node, std::string(name) + ".nic0", {10 * kGB, 1e-6, 0});
    t.addNic(node, std::string(name) + ".nic1", {10 * kGB, 1e-6, 0});
    t.setSlotNic(node, 0, 0);
  }
  t.addNetworkLink("a.nic0", "b.nic0", {100 * kGB, 2e-6, 0});
  t.addNetworkLink("a.nic1", "b.nic1", {100 * kGB, 2e-6, 0});
  t.finish();
  const Placement block = Placement::block(t, 2);
  const double bytes = 1e8;
  const double exact = 2 * (bytes / 2 / (10 * kGB) + 4e-6);  // 2 steps, one 10 GB/s NIC link each
  EXPECT_NEAR(ringLowerBound(t, block, bytes, 1), exact, exact * 1e-12);
  RingSearchOptions options;
  options.bytes = bytes;
  EXPECT_NEAR(searchRings(t, block, options).cost.time_s, exact, exact * 1e-12);
}

}  // namespace
}  // namespace ringlab::topo
