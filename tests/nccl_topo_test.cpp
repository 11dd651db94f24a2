// The NCCL topology importer on real files (tests/data/nccl_topo/, sources in tests/data/README.md)
// and the ring search's lower bound on what it imports. Every expected figure is read off the
// file by hand and priced with NCCL 2.30.7's tables (src/graph/topo.h, topo.cc): NVLink per sm,
// PCIe width x rate / 80, the inter-CPU link by CPU, a NIC's speed / 8000.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "expect_error.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/topo/nccl_xml.hpp"
#include "ringlab/topo/placement.hpp"
#include "ringlab/topo/ring_search.hpp"

namespace ringlab::topo {
namespace {

using ringlab::test::expectInvalid;

constexpr double kGB = 1e9;

NcclImport load(const std::string& file, int nodes = 1) {
  const std::string path = std::string(RINGLAB_TEST_DATA) + "/nccl_topo/" + file;
  return importNcclTopology(readTextFile(path, "test"), file, nodes, 2e-6);
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
    if (!n.nics.empty())
      EXPECT_DOUBLE_EQ(linkBandwidth(in.topology, n.slots[s], n.nics[n.slotNic[s]]), nicLink);
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
