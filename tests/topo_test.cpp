// Topology model, placements, routing, file format, link-hop accounting, ring search, exports.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "expect_error.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/schedule/ring.hpp"
#include "ringlab/topo/file_format.hpp"
#include "ringlab/topo/generators.hpp"
#include "ringlab/topo/link_load.hpp"
#include "ringlab/topo/nccl_xml.hpp"
#include "ringlab/topo/placement.hpp"
#include "ringlab/topo/ring_export.hpp"
#include "ringlab/topo/ring_search.hpp"
#include "ringlab/topo/router.hpp"

namespace ringlab::topo {
namespace {

using schedule::RingOrder;

using ringlab::test::expectInvalid;

std::vector<std::string> linkNames(const Topology& t, const Route& r) {
  std::vector<std::string> names;
  for (int l : r.links) names.push_back(t.linkName(l));
  return names;
}

TEST(Topology, SwitchGeneratorRoutesIntraAndInterNode) {
  const Topology t = generateTopology(
      "nodes=2,ranks=2,intra=10GB/s,inter=1GB/s,inter_latency=5us,intra_latency=1us");
  EXPECT_EQ(t.slotCount(), 4);
  Router router(t);
  const Placement block = Placement::block(t, 4);
  EXPECT_EQ(linkNames(t, router.route(block, 0, 1)),
            (std::vector<std::string>{"n0.s0->n0.fabric", "n0.fabric->n0.s1"}));
  const Route inter = router.route(block, 1, 2);
  EXPECT_EQ(linkNames(t, inter), (std::vector<std::string>{"n0.s1->n0.nic0", "n0.nic0->switch",
                                                           "switch->n1.nic0", "n1.nic0->n1.s0"}));
  EXPECT_NEAR(inter.latency_s, 1e-6 + 5e-6 + 5e-6 + 1e-6, 1e-12);
}

TEST(Topology, PlacementsBlockRoundRobinExplicit) {
  const Topology t = generateTopology("nodes=2,ranks=2");
  const Placement b = Placement::parse(t, "block", 4), rr = Placement::parse(t, "rr", 4);
  EXPECT_EQ(b.nodeOf(1), 0);
  EXPECT_EQ(b.nodeOf(2), 1);
  EXPECT_EQ(rr.nodeOf(1), 1);
  EXPECT_EQ(rr.nodeOf(2), 0);
  EXPECT_EQ(rr.at(2).slot, 1);
  const Placement e = Placement::parse(t, "n1,n1,n0", 3);
  EXPECT_EQ(e.nodeOf(0), 1);
  EXPECT_EQ(e.at(1).slot, 1);
  expectInvalid([&] { Placement::parse(t, "n0,n0,n0", 3); }, {"rank 2", "'n0'", "2 slots"});
  expectInvalid([&] { Placement::parse(t, "n0,n7", 2); }, {"n7", "no such node"});
  expectInvalid([&] { Placement::block(t, 5); }, {"5 ranks", "4 slots"});
  expectInvalid([&] { Placement::parse(t, "diagonal", 4); }, {"diagonal"});
}

TEST(Topology, GeneratorRejectsBadSpecs) {
  expectInvalid([] { generateTopology("nodes=2,colour=red"); }, {"unknown key 'colour'"});
  expectInvalid([] { generateTopology("ranks=2"); }, {"nodes=N"});
  expectInvalid([] { generateTopology("nodes=2,inter=0GB/s"); }, {"inter=0GB/s"});
  expectInvalid([] { generateTopology("nodes=0"); }, {"nodes=0"});
  expectInvalid([] { generateTopology("nodes=6,shape=torus,dims=4x2"); }, {"dims=4x2"});
  expectInvalid([] { generateTopology("nodes=4,shape=cube"); }, {"shape=cube"});
}

// The spec parses into typed values, base units, defaults filled in; errors start with the
// caller's name for the spec, the library's own words when none is given.
TEST(Topology, SpecParsesIntoTypedValuesAndNamesItsInputByTheCallersLabel) {
  const TopologySpec s =
      parseTopologySpec("shape=torus,nodes=16,dims=4x4,ranks=2,inter=25GB/s,inter_latency=5us");
  EXPECT_EQ(s.shape, TopologyShape::Torus);
  EXPECT_EQ(s.nodes, 16);
  EXPECT_EQ(s.ranks, 2);
  EXPECT_EQ(s.rails, 1);
  EXPECT_EQ(s.dimsA, 4);
  EXPECT_EQ(s.dimsB, 4);
  EXPECT_DOUBLE_EQ(s.inter.bandwidth_Bps, 25e9);
  EXPECT_DOUBLE_EQ(s.inter.latency_s, 5e-6);
  EXPECT_DOUBLE_EQ(s.intra.bandwidth_Bps, 100e9);  // the default
  EXPECT_EQ(s.name, s.text);
  EXPECT_EQ(generateTopology(s).slotCount(), 32);
  expectInvalid([] { parseTopologySpec("nodes=2,colour=red"); },
                {"the topology spec: unknown key 'colour'"});
  expectInvalid([] { parseTopologySpec("nodes=2,colour=red", "--topo"); },
                {"--topo: unknown key 'colour'"});
}

TEST(Topology, FatTreeCrossesSpinesWithEcmpSpread) {
  const Topology t = generateTopology("shape=fat-tree,nodes=8,ranks=2,rails=2,leaf=2,spines=4");
  const Placement b = Placement::block(t, 16);
  Router router(t);
  // Same rail, same leaf group: NIC -> leaf -> NIC.
  EXPECT_EQ(router.route(b, 0, 2).links.size(), 4u);
  // Other group: NIC -> leaf -> spine -> leaf -> NIC.
  EXPECT_EQ(router.route(b, 0, 4).links.size(), 6u);
  std::vector<std::string> spinesUsed;
  for (int dst = 4; dst < 16; dst += 2) {
    for (const std::string& name : linkNames(t, router.route(b, 0, dst))) {
      if (name.find("->spine") != std::string::npos) spinesUsed.push_back(name);
    }
  }
  std::sort(spinesUsed.begin(), spinesUsed.end());
  spinesUsed.erase(std::unique(spinesUsed.begin(), spinesUsed.end()), spinesUsed.end());
  EXPECT_GE(spinesUsed.size(), 2u) << "ECMP should spread different pairs over spines";
}

TEST(Topology, TorusAndRingRouteThroughNeighbourNics) {
  const Topology torus = generateTopology("shape=torus,nodes=16,dims=4x4");
  Router router(torus);
  const Placement b = Placement::block(torus, 16);
  // (0,0) -> (0,1): one network link; (0,0) -> (2,2): four.
  EXPECT_EQ(router.route(b, 0, 1).links.size(), 3u);
  EXPECT_EQ(router.route(b, 0, 10).links.size(), 6u);
  // Wrap-around: (0,0) -> (3,0) is one hop.
  EXPECT_EQ(router.route(b, 0, 12).links.size(), 3u);
  const Topology ring = generateTopology("shape=ring,nodes=5");
  Router ringRouter(ring);
  EXPECT_EQ(ringRouter.route(Placement::block(ring, 5), 0, 2).links.size(), 4u);
}

TEST(TopologyFile, RoundTripsAGeneratedTopology) {
  const Topology t =
      generateTopology("shape=fat-tree,nodes=4,ranks=2,rails=2,leaf=2,spines=2,name=ft");
  const Topology back = parseTopologyJson(topologyToJson(t), "ft.json");
  EXPECT_EQ(back.name(), "ft");
  EXPECT_EQ(back.links().size(), t.links().size());
  Router a(t), b(back);
  const Placement pa = Placement::roundRobin(t, 8), pb = Placement::roundRobin(back, 8);
  for (int r = 1; r < 8; ++r)
    EXPECT_EQ(linkNames(t, a.route(pa, 0, r)), linkNames(back, b.route(pb, 0, r)));
}

const char* kGood = R"({"ringlab_topology": 1, "name": "tiny",
  "nodes": [{"name": "a", "slots": 1, "intra": {"bandwidth": "10GB/s"}, "nics": [{"name": "a.eth", "bandwidth": "10GB/s"}]},
            {"name": "b", "slots": 1, "intra": {"bandwidth": "10GB/s"}, "nics": [{"name": "b.eth", "bandwidth": "10000MB/s"}]}],
  "switches": ["core"],
  "links": [{"between": ["a.eth", "core"], "bandwidth": "1GB/s", "latency": "5us"},
            {"between": ["b.eth", "core"], "bandwidth": "1GB/s", "latency": "5000ns"}]})";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(TopologyFile, ReadsTheDocumentedFormat) {
  const Topology t = parseTopologyJson(kGood, "tiny.json");
  EXPECT_EQ(t.nodes().size(), 2u);
  checkConnected(t, Placement::block(t, 2));
}

TEST(TopologyFile, BadInputNamesTheElement) {
  expectInvalid(
      [] {
        parseTopologyJson(
            replaced(kGood, "\"slots\": 1, \"intra\"", "\"slots\": 1, \"gpus\": 2, \"intra\""),
            "f.json");
      },
      {"f.json", "node 'a'", "unknown field 'gpus'"});
  expectInvalid(
      [] {
        parseTopologyJson(replaced(kGood, "[\"b.eth\", \"core\"]", "[\"c.eth\", \"core\"]"),
                          "f.json");
      },
      {"links[1]", "c.eth", "no element named 'c.eth'"});
  expectInvalid(
      [] {
        parseTopologyJson(
            replaced(kGood, "\"1GB/s\", \"latency\": \"5us\"", "\"0GB/s\", \"latency\": \"5us\""),
            "f.json");
      },
      {"links[0]", "a.eth - core", "must be > 0"});
  expectInvalid([] { parseTopologyJson(replaced(kGood, "\"10000MB/s\"", "\"-3GB/s\""), "f.json"); },
                {"b.eth", "-3", "must not be negative"});
  expectInvalid(
      [] {
        parseTopologyJson(replaced(kGood, "\"ringlab_topology\": 1", "\"ringlab_topology\": 7"),
                          "f.json");
      },
      {"format version 7"});
  expectInvalid([] { parseTopologyJson("{", "f.json"); }, {"f.json", "not valid JSON"});
  // Disconnected: b's NIC joins a switch that nothing else reaches.
  const Topology split = parseTopologyJson(
      replaced(replaced(kGood, "\"switches\": [\"core\"]", "\"switches\": [\"core\", \"island\"]"),
               "[\"b.eth\", \"core\"]", "[\"b.eth\", \"island\"]"),
      "split.json");
  expectInvalid([&] { checkConnected(split, Placement::block(split, 2)); },
                {"rank 0 (a.s0)", "rank 1 (b.s0)", "no route"});
}

// A cut-down NCCL_TOPO_DUMP_FILE: two GPUs on NVLink (NVSwitch), each under its own PCIe switch
// with a NIC beside it.
const char* kNcclDump = R"(<?xml version="1.0"?>
<!-- NCCL topology dump -->
<system version="1">
  <cpu numaid="0" arch="x86_64">
    <pci busid="0000:10:00.0" class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:11:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="80" rank="0" gdr="1">
          <nvlink target="0000:c4:00.0" count="12" tclass="0x068000"/>
        </gpu>
      </pci>
      <pci busid="0000:12:00.0" class="0x020700" link_speed="16.0 GT/s PCIe" link_width="16">
        <nic><net name="mlx5_0" dev="0" speed="200000" port="1" gdr="1"/></nic>
      </pci>
    </pci>
    <pci busid="0000:20:00.0" class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:21:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="80" rank="1" gdr="1">
          <nvlink target="0000:c4:00.0" count="12" tclass="0x068000"/>
        </gpu>
      </pci>
      <pci busid="0000:22:00.0" class="0x020700" link_speed="16.0 GT/s PCIe" link_width="16">
        <nic><net name="mlx5_1" dev="1" speed="200000" port="1" gdr="1"/></nic>
      </pci>
    </pci>
  </cpu>
</system>
)";

TEST(NcclXml, ImportsGpusNvlinkAndNearestNics) {
  const Topology t = parseNcclTopologyXml(kNcclDump, "dump.xml", 2, 2e-6);
  ASSERT_EQ(t.nodes().size(), 2u);
  EXPECT_EQ(t.nodes()[0].slots.size(), 2u);
  const Node& n = t.nodes()[0];
  EXPECT_EQ(n.slotNic, (std::vector<int>{0, 1}));  // each GPU uses the NIC under its own switch
  EXPECT_NEAR(t.links()[t.linkBetween(n.slots[0], n.fabric)].bandwidth_Bps, 12 * 20e9, 1);
  const int up = t.linkBetween(t.findVertex("n0.mlx5_1"), t.findVertex("switch"));
  ASSERT_GE(up, 0);
  EXPECT_NEAR(t.links()[up].bandwidth_Bps, 200e9 / 8, 1);
  checkConnected(t, Placement::block(t, 4));
}

TEST(NcclXml, RefusesUnknownVersionsAndMalformedInput) {
  std::string other = kNcclDump;
  other.replace(other.find("version=\"1\">"), 12, "version=\"3\">");
  expectInvalid([&] { parseNcclTopologyXml(other, "dump.xml", 1, 0); },
                {"dump.xml", "version 3", "not supported"});
  expectInvalid([] { parseNcclTopologyXml("<graphs version=\"1\"/>", "g.xml", 1, 0); },
                {"g.xml", "<system>"});
  expectInvalid(
      [] { parseNcclTopologyXml("<system version=\"1\"><gpu dev=\"0\">", "t.xml", 1, 0); },
      {"t.xml", "never closed"});
  expectInvalid(
      [] {
        parseNcclTopologyXml("<system version=\"1\"><gpu rank=\"0\"/></system>", "t.xml", 1, 0);
      },
      {"<gpu> has no 'dev' attribute"});
}

// Two nodes x two ranks, round-robin: rank order crosses the uplinks twice per direction.
TEST(LinkLoad, RankOrderDoublesTheUplinkLoadUnderRoundRobin) {
  const Topology t =
      generateTopology("nodes=2,ranks=2,intra=10GB/s,inter=1GB/s,inter_latency=0,intra_latency=0");
  const Placement rr = Placement::roundRobin(t, 4);
  const std::uint64_t count = 1 << 20;  // float32: 4 MiB, 1 MiB chunks
  const auto identity = schedule::ringAllReduce(RingOrder::identity(4));
  const auto grouped = schedule::ringAllReduce(RingOrder::fromList({0, 2, 1, 3}, 4));
  const LinkLoadReport a = countLinkLoads(t, rr, identity, count, DataType::Float32);
  const LinkLoadReport b = countLinkLoads(t, rr, grouped, count, DataType::Float32);
  const int uplink = t.linkBetween(t.findVertex("n0.nic0"), t.findVertex("switch"));
  EXPECT_EQ(a.steps[0].links.size() > 0, true);
  EXPECT_EQ(a.maxTransfers[uplink], 2);
  EXPECT_EQ(b.maxTransfers[uplink], 1);
  EXPECT_EQ(a.totalBytes[uplink], 6u * 2 * (1 << 20));  // 6 steps x 2 chunks of 1 MiB
  EXPECT_NEAR(a.time_s / b.time_s, 2.0, 1e-9);
  std::uint64_t sum = 0;
  for (std::uint64_t bytes : a.totalBytes) sum += bytes;
  EXPECT_EQ(a.linkHopBytes, sum);
  // 6 steps x 4 transfers x 4 links x 1 MiB: every transfer crosses nodes in rank order.
  EXPECT_EQ(a.linkHopBytes, 6u * 4 * 4 * (1 << 20));
  EXPECT_EQ(a.mostLoadedLink >= 0, true);
}

TEST(RingSearch, ExactSearchRecoversBlockPlacementUnderRoundRobin) {
  const Topology t = generateTopology("nodes=4,ranks=2,intra=10GB/s,inter=1GB/s");
  const Placement rr = Placement::roundRobin(t, 8);
  const RingSearchResult r = searchRings(t, rr, {});
  EXPECT_NE(r.method.find("exhaustive"), std::string::npos);
  EXPECT_NEAR(r.rankOrderCost.time_s / r.cost.time_s, 2.0, 0.05);
  EXPECT_LE(r.lowerBound_s, r.cost.time_s * (1 + 1e-9));
  // Each node's two ranks sit next to each other in the ring.
  const RingOrder& ring = r.rings[0];
  int crossings = 0;
  for (int rank = 0; rank < 8; ++rank) crossings += rr.nodeOf(rank) != rr.nodeOf(ring.next(rank));
  EXPECT_EQ(crossings, 4);
}

TEST(RingSearch, HeuristicReachesTheLowerBoundOnATwoLevelExample) {
  const Topology t = generateTopology(
      "shape=fat-tree,nodes=16,ranks=4,rails=1,leaf=4,spines=4,intra=100GB/s,inter=10GB/s");
  const Placement rr = Placement::roundRobin(t, 64);
  const RingSearchResult r = searchRings(t, rr, {});
  EXPECT_NE(r.method.find("heuristic"), std::string::npos);
  EXPECT_GT(r.rankOrderCost.time_s / r.cost.time_s, 3.0);
  EXPECT_LE(r.cost.time_s / r.lowerBound_s, 1.25);
}

TEST(RingSearch, TwoChannelsSpreadOverRails) {
  const Topology t =
      generateTopology("shape=fat-tree,nodes=4,ranks=2,rails=2,leaf=4,intra=100GB/s,inter=10GB/s");
  const Placement b = Placement::block(t, 8);
  RingSearchOptions one, two;
  two.channels = 2;
  const RingSearchResult r1 = searchRings(t, b, one), r2 = searchRings(t, b, two);
  ASSERT_EQ(r2.rings.size(), 2u);
  // Two rings that leave each node on different rails halve the bottleneck of one ring.
  EXPECT_LT(r2.cost.bottleneck_s, 0.75 * r1.cost.bottleneck_s);
}

TEST(RingExport, RankfileMachinefileAndNcclGraph) {
  const Topology t = generateTopology("nodes=2,ranks=2");
  const Placement rr = Placement::roundRobin(t, 4);
  const RingOrder ring = RingOrder::fromList({0, 2, 1, 3}, 4);
  const std::string rankfile = openMpiRankfile(t, rr, ring);
  EXPECT_NE(
      rankfile.find("rank 0=n0 slot=0\nrank 1=n0 slot=1\nrank 2=n1 slot=0\nrank 3=n1 slot=1\n"),
      std::string::npos);
  EXPECT_NE(mpichMachinefile(t, rr, ring).find("n0:1\nn0:1\nn1:1\nn1:1\n"), std::string::npos);
  const std::string xml = ncclGraphXml(t, rr, {ring}, 0);
  EXPECT_NE(xml.find("pattern=\"4\""), std::string::npos);
  EXPECT_NE(xml.find("nchannels=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("<gpu dev=\"0\"/>\n      <gpu dev=\"1\"/>"), std::string::npos) << xml;
}

}  // namespace
}  // namespace ringlab::topo
