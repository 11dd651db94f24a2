// The simulator against the closed-form model, against link-hop counting, and its sharing rule.
#include <gtest/gtest.h>

#include <algorithm>

#include "ringlab/core/error.hpp"
#include "ringlab/model/cost.hpp"
#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/schedule/multi_ring.hpp"
#include "ringlab/schedule/ring.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/sim/workload.hpp"
#include "ringlab/topo/file_format.hpp"
#include "ringlab/topo/generators.hpp"
#include "ringlab/topo/ring_search.hpp"

namespace ringlab::sim {
namespace {

using schedule::RingOrder;

// One node, p slots: every slot has its own link to the fabric each way, so no two transfers of a
// ring step share a link: the closed-form model's assumptions exactly.
TEST(Simulator, EqualsTheClosedFormModelWithoutContention) {
  for (int p : {2, 3, 8, 13}) {
    for (std::uint64_t count : {std::uint64_t{1} << 20, std::uint64_t{1000003}}) {
      const topo::Topology t = topo::generateTopology("nodes=1,ranks=" + std::to_string(p) +
                                                      ",intra=5GB/s,intra_latency=3us");
      const topo::Placement block = topo::Placement::block(t, p);
      const SimParams params{2e-10};
      const auto s = schedule::ringAllReduce(RingOrder::identity(p));
      const SimResult r =
          simulate(t, block, workloadFromSchedule(s, count, DataType::Float32), params);
      model::ModelParams m;
      m.link.alpha_s = 2 * 3e-6;  // slot -> fabric -> slot
      m.link.beta_s_per_byte = 1 / 5e9;
      m.reduce.gamma_s_per_byte = 2e-10;
      const double closed = model::ringAllReduceCost(p, count, 4, m).total_s();
      EXPECT_NEAR(r.time_s / closed, 1.0, 0.01) << "p " << p << " count " << count;
      EXPECT_FALSE(r.criticalPath.empty());
    }
  }
}

TEST(Simulator, CompressedRingWorkloadMatchesTheSchedule) {
  const RingOrder order = RingOrder::fromList({0, 3, 1, 4, 2, 5}, 6);
  const std::uint64_t count = 6 * 2 * 1000;
  Workload fromSchedule = workloadFromSchedule(
      schedule::multiRingAllReduce({order, order.reversed()}), count, DataType::Float32);
  Workload compressed = ringAllReduceWorkload({order, order.reversed()}, count, DataType::Float32);
  ASSERT_EQ(fromSchedule.groups.size(), 2u);
  ASSERT_EQ(compressed.groups.size(), 2u);
  for (int g = 0; g < 2; ++g) {
    auto key = [](const SimTransfer& t) { return std::tuple(t.src, t.dst, t.bytes, t.reduce); };
    auto sorted = [&](std::vector<SimTransfer> v) {
      std::sort(v.begin(), v.end(),
                [&](const SimTransfer& a, const SimTransfer& b) { return key(a) < key(b); });
      return v;
    };
    EXPECT_EQ(fromSchedule.groups[g].repeats, compressed.groups[g].repeats);
    EXPECT_EQ(fromSchedule.groups[g].phase, compressed.groups[g].phase);
    EXPECT_EQ(sorted(fromSchedule.groups[g].transfers), sorted(compressed.groups[g].transfers));
  }
}

// Max-min fairness: A (a -> b) and B (a -> c) share a's uplink of 10 GB/s; c's downlink is 2 GB/s,
// so B gets 2 and A the remaining 8.
TEST(Simulator, SharesLinksMaxMinFairly) {
  const char* json = R"({"ringlab_topology": 1, "nodes": [
    {"name": "a", "slots": 1, "intra": {"bandwidth": "100GB/s"}, "nics": [{"name": "a.nic", "bandwidth": "100GB/s"}]},
    {"name": "b", "slots": 1, "intra": {"bandwidth": "100GB/s"}, "nics": [{"name": "b.nic", "bandwidth": "100GB/s"}]},
    {"name": "c", "slots": 1, "intra": {"bandwidth": "100GB/s"}, "nics": [{"name": "c.nic", "bandwidth": "100GB/s"}]}],
    "switches": ["sw"],
    "links": [{"between": ["a.nic", "sw"], "bandwidth": "10GB/s"}, {"between": ["b.nic", "sw"], "bandwidth": "10GB/s"},
              {"between": ["c.nic", "sw"], "bandwidth": "2GB/s"}]})";
  const topo::Topology t = topo::parseTopologyJson(json, "three.json");
  Workload w;
  w.ranks = 3;
  w.groups.push_back({"one", {{0, 1, 8e9, false}, {0, 2, 2e9, false}}, 1});
  const SimResult r = simulate(t, topo::Placement::block(t, 3), w, {});
  EXPECT_NEAR(r.time_s, 1.0, 1e-6);  // both finish at 1 s: 8 GB at 8 GB/s, 2 GB at 2 GB/s
  // Now A carries 16 GB: after 1 s it alone is left and runs at 10 GB/s: 1 + 8/10 s.
  w.groups[0].transfers[0].bytes = 16e9;
  EXPECT_NEAR(simulate(t, topo::Placement::block(t, 3), w, {}).time_s, 1.8, 1e-6);
  // a's uplink measured at 8 GB/s together when shared: B keeps 2, A gets 6 until B ends at 1 s
  // (6 GB sent), then alone at 10 GB/s for the last 10 GB: 2 s.
  std::string shared = json;
  const std::string plain = R"("a.nic", "sw"], "bandwidth": "10GB/s")";
  shared.replace(shared.find(plain), plain.size(), plain + R"(, "shared_bandwidth": "8GB/s")");
  const topo::Topology lossy = topo::parseTopologyJson(shared, "lossy.json");
  EXPECT_NEAR(simulate(lossy, topo::Placement::block(lossy, 3), w, {}).time_s, 2.0, 1e-6);
}

TEST(Simulator, PredictsTheRoundRobinSpeedUpOfTheSearchedOrder) {
  const topo::Topology t =
      topo::generateTopology("nodes=4,ranks=2,intra=10GB/s,inter=0.05GB/s,inter_latency=50us");
  const topo::Placement rr = topo::Placement::roundRobin(t, 8);
  const topo::RingSearchResult found = topo::searchRings(t, rr, {});
  const std::uint64_t count = 4 << 20;
  const double rankOrder =
      simulate(t, rr, ringAllReduceWorkload({RingOrder::identity(8)}, count, DataType::Float32), {})
          .time_s;
  const double searched =
      simulate(t, rr, ringAllReduceWorkload(found.rings, count, DataType::Float32), {}).time_s;
  EXPECT_NEAR(rankOrder / searched, 2.0, 0.05);
}

TEST(Simulator, SkipsRepeatedStepsAsATimeShift) {
  const topo::Topology t = topo::generateTopology("shape=fat-tree,nodes=64,ranks=4,rails=4,leaf=8");
  const topo::Placement b = topo::Placement::block(t, 256);
  const SimResult r = simulate(
      t, b, ringAllReduceWorkload({RingOrder::identity(256)}, 1 << 24, DataType::Float32), {});
  EXPECT_LT(r.simulatedSteps, 40u);
  EXPECT_GT(r.time_s, 0);
  double total = 0;
  for (double bytes : r.linkBytes) total += bytes;
  EXPECT_GT(total, 0);
}

TEST(Simulator, RefusesAPlacementOfAnotherSize) {
  const topo::Topology t = topo::generateTopology("nodes=2,ranks=2");
  EXPECT_THROW(simulate(t, topo::Placement::block(t, 3),
                        ringAllReduceWorkload({RingOrder::identity(4)}, 64, DataType::Float32), {}),
               Error);
}

}  // namespace
}  // namespace ringlab::sim
