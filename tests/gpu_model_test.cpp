// The GPU system specs, NCCL's channel search as the model states it, NCCL's tuning figures, and
// the verdict. Expected figures are hand traces of NCCL 2.30.7's search.cc and tuning.cc for
// systems whose NCCL_DEBUG lines are public (8 x H100: "Pattern 4 ... nChannels 12, bw 30/30",
// NVIDIA/nccl issue 1197).
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "expect_error.hpp"
#include "ringlab/gpu/nccl_model.hpp"
#include "ringlab/gpu/system_spec.hpp"
#include "ringlab/gpu/system_topology.hpp"
#include "ringlab/gpu/verdict.hpp"
#include "ringlab/topo/generators.hpp"

namespace ringlab::gpu {
namespace {

using test::expectInvalid;

NcclModel modelOf(const std::string& spec) {
  return NcclModel(parseSystem(spec));
}

TEST(GpuSystemSpec, PresetsParseAndNameTheirSources) {
  ASSERT_GE(presets().size(), 12u);
  for (const Preset& p : presets()) {
    const GpuSystem s = parseSystem(p.key);
    EXPECT_EQ(s.name, p.key);
    EXPECT_FALSE(std::string(p.source).empty()) << p.key;
    EXPECT_GE(s.gpusPerNode, 1) << p.key;
  }
}

TEST(GpuSystemSpec, KeysOverrideAPresetAndNodesScaleIt) {
  const GpuSystem s = parseSystem("dgx-h100,nodes=4,nics=4");
  EXPECT_EQ(s.nodes, 4);
  EXPECT_EQ(s.ranks(), 32);
  EXPECT_EQ(s.nicsPerNode, 4);
  EXPECT_DOUBLE_EQ(s.nicBandwidth_Bps, 50e9);
  EXPECT_NEAR(s.intraBandwidth_Bps(), 18 * 20.6e9, 1);
}

TEST(GpuSystemSpec, BadSpecsNameTheValueAndWhatIsValid) {
  expectInvalid([] { parseSystem("dgx-h1000"); }, {"dgx-h1000", "presets:", "dgx-h100"});
  expectInvalid([] { parseSystem("gpu=h100,gpus=0"); }, {"gpus=0", "1 to 1024"});
  expectInvalid([] { parseSystem("gpu=x9"); }, {"gpu=x9", "h100"});
  expectInvalid([] { parseSystem("gpu=h100,nodes=2"); }, {"nodes=2", "nics="});
  expectInvalid([] { parseSystem("gpu=h100,nics=8"); }, {"nics=8", "nic="});
  expectInvalid([] { parseSystem("gpu=h100,nic=400"); }, {"nic=400", "unit"});
  expectInvalid([] { parseSystem("gpu=h100,gpus=8,gpus=4"); }, {"gpus", "twice"});
  expectInvalid([] { parseSystem("gpus=8"); }, {"no GPU"});
  expectInvalid([] { parseSystem("gpu=a100,nvls=yes"); }, {"nvls=yes", "sm 90"});
  expectInvalid([] { parseSystem("gpu=h100,p2p=maybe"); }, {"p2p=maybe", "yes or no"});
  expectInvalid([] { parseSystem("gpu=h100,bogus=1"); }, {"bogus", "keys:"});
  expectInvalid([] { parseSystem(""); }, {"empty"});
}

TEST(GpuSystemSpec, WithRanksPlacesTheLogsP) {
  const GpuSystem s = parseSystem("dgx-h100");
  EXPECT_EQ(withRanks(s, 16).nodes, 2);
  EXPECT_EQ(withRanks(s, 4).ranksPerNode, 4);
  EXPECT_EQ(withRanks(s, 4).nodes, 1);
  expectInvalid([&] { withRanks(s, 12); }, {"p = 12", "nodes="});
  const GpuSystem four = parseSystem("dgx-h100,nodes=4");
  EXPECT_EQ(withRanks(four, 16).ranksPerNode, 4);
}

TEST(NcclModelGraphs, H100NodeMatchesNcclsSearch) {
  const NcclModel m = modelOf("dgx-h100");
  const NcclGraph& ring = m.graph(NcclAlgorithm::Ring);
  EXPECT_EQ(ring.channels, 12);
  EXPECT_DOUBLE_EQ(ring.bwIntra_GBps, 30);
  const NcclGraph& tree = m.graph(NcclAlgorithm::Tree);
  EXPECT_EQ(tree.channels, 12);
  EXPECT_DOUBLE_EQ(tree.bwIntra_GBps, 30);
  const NcclGraph& nvls = m.graph(NcclAlgorithm::Nvls);
  EXPECT_EQ(nvls.channels, 8);
  EXPECT_DOUBLE_EQ(nvls.bwIntra_GBps, 40);
  EXPECT_DOUBLE_EQ(nvls.bwInter_GBps, 60);
  // Ring Simple: 12 x 30 = 360 busBw, algbw x 8/14; NVLS: 40 x .85 x 7/8 x 2 = 59.5 per channel.
  EXPECT_NEAR(m.bandwidth_GBps(NcclAlgorithm::Ring, NcclProtocol::Simple), 360.0 * 8 / 14, 1e-6);
  EXPECT_NEAR(m.bandwidth_GBps(NcclAlgorithm::Nvls, NcclProtocol::Simple), 8 * 59.5 * 8 / 14, 1e-3);
  // Ring latencies on NVLink, one node: 6.6 + 14 x 0.6, 14 + 14 x 1.9, 8.4 + 14 x 3.4.
  EXPECT_NEAR(m.latency_us(NcclAlgorithm::Ring, NcclProtocol::LL), 15.0, 1e-9);
  EXPECT_NEAR(m.latency_us(NcclAlgorithm::Ring, NcclProtocol::LL128), 40.6, 1e-9);
  EXPECT_NEAR(m.latency_us(NcclAlgorithm::Ring, NcclProtocol::Simple), 56.0, 1e-9);
  // At 8 GiB NCCL's tuner picks NVLS.
  EXPECT_EQ(m.predict(8ull << 30).chosen.algorithm, NcclAlgorithm::Nvls);
}

TEST(NcclModelGraphs, TwoH100NodesRingAndNvlsTree) {
  const NcclModel m = modelOf("dgx-h100,nodes=2");
  EXPECT_EQ(m.graph(NcclAlgorithm::Ring).channels, 8);
  EXPECT_DOUBLE_EQ(m.graph(NcclAlgorithm::Ring).bwIntra_GBps, 48);
  // NVLSTree: min(59.5, 2 x 48, 57.7) x 8 channels, ring ratio 16/30.
  EXPECT_NEAR(m.bandwidth_GBps(NcclAlgorithm::NvlsTree, NcclProtocol::Simple), 57.7 * 8 * 16 / 30,
              1e-3);
  // Tree: min(8 x 48 x .92, 8 x 41.4) x .85 (sm 90's simpler tree), halved.
  EXPECT_NEAR(m.bandwidth_GBps(NcclAlgorithm::Tree, NcclProtocol::Simple), 8 * 41.4 * .85 / 2,
              1e-3);
  // NVLS across nodes needs CollNet.
  EXPECT_EQ(m.bandwidth_GBps(NcclAlgorithm::Nvls, NcclProtocol::Simple), 0);
}

TEST(NcclModelGraphs, A100AndP4dAsNcclTracesThem) {
  const NcclModel one = modelOf("dgx-a100");
  EXPECT_EQ(one.graph(NcclAlgorithm::Ring).channels, 12);
  EXPECT_DOUBLE_EQ(one.graph(NcclAlgorithm::Ring).bwIntra_GBps, 20);
  EXPECT_EQ(one.bandwidth_GBps(NcclAlgorithm::Nvls, NcclProtocol::Simple), 0);
  const NcclModel p4d = modelOf("aws-p4d,nodes=2");
  EXPECT_EQ(p4d.graph(NcclAlgorithm::Ring).channels, 4);
  EXPECT_DOUBLE_EQ(p4d.graph(NcclAlgorithm::Ring).bwIntra_GBps, 12);
  // The tree raises its speed inside the node to twice the network's on two nodes.
  EXPECT_DOUBLE_EQ(p4d.graph(NcclAlgorithm::Tree).bwIntra_GBps, 24);
  EXPECT_EQ(p4d.predict(1ull << 30).chosen.algorithm, NcclAlgorithm::Tree);
}

TEST(NcclModelGraphs, PcieWithoutPeerToPeerGoesThroughTheCpu) {
  // 8 x RTX 4090, four behind each switch: 24 / (4 x 1.2) = 5 GB/s, one channel.
  const NcclModel m = modelOf("gpu=rtx4090,gpus=8,p2p=no,pcie_switch=4");
  EXPECT_EQ(m.graph(NcclAlgorithm::Ring).channels, 1);
  EXPECT_DOUBLE_EQ(m.graph(NcclAlgorithm::Ring).bwIntra_GBps, 5);
  // LL128 is NVLink-only; no NVLS.
  EXPECT_EQ(m.bandwidth_GBps(NcclAlgorithm::Ring, NcclProtocol::LL128), 0);
  EXPECT_EQ(m.predict(1ull << 30).regime, Regime::PCIe);
}

TEST(NcclModelPrediction, TimeIsLatencyPlusBytesOverAlgbwAndTheBoundIsTheRingOnTheLinks) {
  const NcclModel m = modelOf("dgx-a100");
  for (std::uint64_t bytes : {8ull, 4096ull, 1ull << 20, 1ull << 30}) {
    const NcclPrediction p = m.predict(bytes);
    for (const NcclChoice& c : p.candidates) {
      EXPECT_NEAR(c.time_s, c.latency_s + double(bytes) / c.algBw_Bps, 1e-12);
    }
  }
  // The bound: 2(p-1) alpha + 2(p-1)/p n / 240 GB/s, alpha NCCL's Simple ring step (56 us / 14).
  const std::uint64_t n = 16ull << 30;
  EXPECT_NEAR(m.predict(n).boundTime_s, 56e-6 + 2.0 * 7 / 8 * double(n) / 240e9, 1e-9);
  EXPECT_EQ(m.predict(8).regime, Regime::Latency);
  EXPECT_EQ(m.predict(1ull << 30).regime, Regime::NVLink);
  expectInvalid([] { NcclModel(withRanks(parseSystem("dgx-a100"), 1)); }, {"p = 1"});
}

TEST(GpuVerdict, FlagsALogAtHalfTheHardwareAndNotOneAtIt) {
  const NcclModel m = modelOf("dgx-h100,nodes=2,nvls=no");
  std::vector<MeasuredTime> good, half;
  for (std::uint64_t bytes = 1 << 20; bytes <= (1ull << 33); bytes *= 4) {
    const double t = m.predict(bytes).chosen.time_s * 1e6;
    good.push_back({bytes, t * 1.05});
    half.push_back({bytes, t * 2.2});
  }
  const Verdict ok = judge(m, good);
  EXPECT_FALSE(ok.flagged);
  ASSERT_FALSE(ok.bands.empty());
  EXPECT_NEAR(ok.bands.back().medianAbsError, 0.05, 1e-9);
  const Verdict bad = judge(m, half);
  EXPECT_TRUE(bad.flagged);
  ASSERT_FALSE(bad.findings.empty());
  // Without NVLS the ring is held by the GPUs' NVSwitch links (370.8 GB/s), not the 8 x 48 GB/s
  // of NICs: the causes named are NVLink's.
  EXPECT_NE(bad.findings.front().find("nvlink --status"), std::string::npos)
      << bad.findings.front();
}

std::vector<int> nodeSlice(const schedule::RingOrder& ring, int node, int gpus) {
  const std::vector<int>& all = ring.ranks();
  return {all.begin() + node * gpus, all.begin() + (node + 1) * gpus};
}

// NCCL_DEBUG=INFO on 4 x p4d.24xlarge (8 A100, 4 EFA NICs; NVIDIA/nccl issue 514) printed, from
// rank 0: "Channel 00/08 : 0 7 6 5 4 3 2 1 8 15 14 13 12 11 10 9 16 23 22 21", "Channel 02/08 :
// 0 7 6 5 12 11 10 9 8 15 14 13 20 ..." and, on node 1, channel 1 entering at 10 and leaving from
// 11, channel 3 entering at 14 and leaving from 15.
TEST(NcclRings, EnterAndLeaveEveryNodeOnOneNicsGpusAsNcclsSearchDoes) {
  const GpuSystem p4d = parseSystem("aws-p4d,nodes=4");
  const std::vector<schedule::RingOrder> rings = ncclRings(p4d, 8);
  ASSERT_EQ(rings.size(), 8u);
  const std::vector<int> first20(rings[0].ranks().begin(), rings[0].ranks().begin() + 20);
  EXPECT_EQ(first20, (std::vector<int>{0,  7,  6,  5,  4,  3, 2,  1,  8,  15,
                                       14, 13, 12, 11, 10, 9, 16, 23, 22, 21}));
  EXPECT_EQ(nodeSlice(rings[2], 1, 8), (std::vector<int>{12, 11, 10, 9, 8, 15, 14, 13}));
  EXPECT_EQ(nodeSlice(rings[1], 1, 8).front(), 10);
  EXPECT_EQ(nodeSlice(rings[1], 1, 8).back(), 11);
  EXPECT_EQ(nodeSlice(rings[3], 1, 8).front(), 14);
  EXPECT_EQ(nodeSlice(rings[3], 1, 8).back(), 15);
  EXPECT_EQ(rings[4].ranks(), rings[0].ranks());  // channel c takes NIC c mod 4
  // One node: rotations, each GPU starting one channel.
  const std::vector<schedule::RingOrder> one = ncclRings(parseSystem("dgx-h100"), 2);
  EXPECT_EQ(one[1].ranks(), (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 0}));
  expectInvalid([] { ncclRings(parseSystem("dgx-h100"), 0); }, {"0 channels", "1 to 32"});
}

TEST(NcclRings, TheSystemDrawnAsATopologyCarriesItsLinksAndNcclsHopLatencies) {
  EXPECT_EQ(topologySpec(parseSystem("dgx-h100,nodes=2")),
            "nodes=2,ranks=8,intra=370.8GB/s,intra_latency=1.7us,rails=8,inter=50GB/s,"
            "pcie=" +
                fmt::format("{:.6g}", parseSystem("dgx-h100").pcieBandwidth_Bps() / 1e9) +
                "GB/s,inter_latency=5.3us,name=dgx-h100");
  // The spec builds: two nodes of eight GPUs.
  const topo::Topology t = topo::generateTopology(topologySpec(parseSystem("aws-p4d,nodes=2")));
  EXPECT_EQ(t.slotCount(), 16);
  EXPECT_NE(topologyNote(parseSystem("dgx-1-v100")).find("generous"), std::string::npos);
}

// NCCL_ALGO=Ring as a run sets it: every size on the ring, and the ring's latency is NCCL's
// 6.6 us base + 28 NVLink-side hops at the 1 us network post overhead + 2 network hops: 2.7 us
// each on InfiniBand (NCCL's figure), 20 us on EFA (aws-ofi-nccl's tuner).
TEST(NcclSelection, TheRunsAlgorithmAndProtocolAreAllThatIsPriced) {
  const NcclModel ring(parseSystem("dgx-h100,nodes=2,algo=ring"));
  for (std::uint64_t bytes = 8; bytes <= (1ull << 32); bytes *= 8) {
    const NcclPrediction p = ring.predict(bytes);
    EXPECT_EQ(p.chosen.algorithm, NcclAlgorithm::Ring) << bytes;
    for (const NcclChoice& c : p.candidates) EXPECT_EQ(c.algorithm, NcclAlgorithm::Ring);
  }
  EXPECT_NEAR(ring.latency_us(NcclAlgorithm::Ring, NcclProtocol::LL), 6.6 + 28 * 1.0 + 2 * 2.7,
              1e-9);
  const NcclModel efa(parseSystem("aws-p5,nodes=2"));
  EXPECT_NEAR(efa.latency_us(NcclAlgorithm::Ring, NcclProtocol::LL), 6.6 + 28 * 1.0 + 2 * 20.0,
              1e-9);
  const NcclModel simple(parseSystem("dgx-h100,nodes=2,proto=simple,algo=^nvls+nvlstree"));
  for (const NcclChoice& c : simple.predict(1 << 20).candidates) {
    EXPECT_EQ(c.protocol, NcclProtocol::Simple);
    EXPECT_NE(c.algorithm, NcclAlgorithm::NvlsTree);
  }
  EXPECT_NE(describeSystem(parseSystem("dgx-h100,algo=Ring+Tree")).find("NCCL_ALGO=Ring+Tree"),
            std::string::npos);
}

TEST(NcclSelection, UnknownNamesAndSelectionsThatLeaveNothingAreRefused) {
  expectInvalid([] { parseSystem("dgx-h100,algo=rings"); },
                {"algo=rings", "'rings'", "Ring, Tree, CollNet"});
  expectInvalid([] { parseSystem("dgx-h100,proto=ll256"); }, {"proto=ll256", "LL, LL128, Simple"});
  // NVLS across nodes needs SHARP in the network: nothing is left.
  expectInvalid([] { NcclModel(parseSystem("dgx-h100,nodes=2,algo=nvls")); },
                {"algo=nvls (NCCL_ALGO)", "leave nothing"});
}

// One GH200 per node (srun -N2, one rank each): no NVLink peers on the board, so the ring's
// bottleneck is the one 200 Gb/s NIC, not a mesh share of zero.
TEST(NcclModelGraphs, OneGpuPerNodeIsBoundByItsNic) {
  const NcclModel m(parseSystem("gpu=gh200,gpus=1,nodes=2,nics=1,nic=200Gb/s,net=slingshot"));
  EXPECT_NEAR(m.ringBottleneck_Bps(), 25e9, 1e6);
  EXPECT_TRUE(m.networkBound());
  const NcclPrediction big = m.predict(std::uint64_t{1} << 27);
  EXPECT_TRUE(std::isfinite(big.boundTime_s));
  EXPECT_GT(big.chosen.busBw_Bps, 15e9);
  EXPECT_LT(big.chosen.busBw_Bps, 25e9);
}

}  // namespace
}  // namespace ringlab::gpu
