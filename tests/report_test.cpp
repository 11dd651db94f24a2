// The text renderings of the report layer that `ringlab topo show|search` and `ringlab plan`
// print, held here line by line on small cases whose figures can be checked by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ringlab/model/measured_curve.hpp"
#include "ringlab/report/plan_table.hpp"
#include "ringlab/report/ring_report_text.hpp"
#include "ringlab/topo/generators.hpp"
#include "ringlab/topo/placement.hpp"

namespace {

using namespace ringlab;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (std::size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
    out.push_back(text.substr(from, nl - from));
  EXPECT_EQ(from, text.size()) << "text does not end in a newline";
  return out;
}

// Two nodes of two slots behind 400 Mbit/s NICs, ranks round-robin: rank order crosses each NIC
// twice per step, the searched ring once. 16 MiB in 4 MiB chunks: a rank-order step is
// 2 x 4 MiB / 50 MB/s + 6 us = 167778.16 us, six steps 1006669.0 us.
struct TwoNodes {
  topo::Topology topology = topo::generateTopology("nodes=2,ranks=2,inter=400Mbit/s");
  topo::Placement placement = topo::Placement::parse(topology, "rr", 4);
  topo::RingReport report(bool linkLoads, const std::string& order = "") const {
    return topo::reportRings(topology, placement, {"two nodes", "rr", 4, 16 << 20}, 0, order,
                             linkLoads);
  }
};

TEST(ReportRingText, SearchPrintsHeaderRowsAndTheOrderToApply) {
  const TwoNodes t;
  const std::vector<std::string> l = lines(report::ringSearchText(t.report(false), t.topology));
  ASSERT_EQ(l.size(), 9u);
  EXPECT_EQ(l[0], "# ringlab topo search: topology two nodes");
  EXPECT_EQ(l[1], "# placement rr  p 4  channels 1");
  EXPECT_EQ(l[2],
            "# predicted ring allreduce of 16 MiB: T = 2(p-1) x (chunk x max over links of "
            "transfers/bandwidth + slowest path latency), chunk = size/(channels x p)");
  EXPECT_EQ(l[3],
            "# ring            time(us)   step(us) bottleneck link                lat(us)  order");
  EXPECT_EQ(
      l[4],
      "  rank order     1006669.0  167778.16 n0.nic0->switch                   6.00  0,1,2,3");
  EXPECT_EQ(
      l[5],
      "  searched        503352.5   83892.08 n0.nic0->switch                   6.00  0,2,3,1");
  EXPECT_EQ(l[6].rfind("# 2.00x faster than rank order; lower bound ", 0), 0u) << l[6];
  EXPECT_EQ(l[7], "# method: exhaustive branch and bound (exact for p <= 10)");
  EXPECT_EQ(l[8], "# apply: ringlab bench --ring-order 0,2,3,1");
}

TEST(ReportRingText, ShowPrintsTheBusiestLinksOfBothRingSets) {
  const TwoNodes t;
  const std::vector<std::string> l =
      lines(report::ringShowText(t.report(true, "0,1,2,3|0,2,1,3"), t.topology, 2));
  ASSERT_EQ(l.size(), 13u);
  EXPECT_EQ(l[0], "# ringlab topo show: topology two nodes");
  EXPECT_EQ(l[1], "# placement rr  p 4  channels 2");
  EXPECT_EQ(l[5].substr(0, 13), "  given      ");
  EXPECT_NE(l[5].find("  0,1,2,3 | 0,2,1,3"), std::string::npos) << l[5];
  EXPECT_EQ(l[8].rfind("# link-hop bytes (bytes x links crossed, whole allreduce): rank order ", 0),
            0u)
      << l[8];
  EXPECT_EQ(l[10],
            "# link                                GB/s | rank ord.          bytes   busy(us) | "
            "chosen             bytes   busy(us)");
  EXPECT_EQ(l[11].substr(0, 42), "  n0.nic0->switch                    0.050");
}

// Beyond kMaxLinkTableRanks the loads would need the whole schedule: not counted, and said so.
TEST(ReportRingText, ShowSaysWhyTheLinkTableIsLeftOut) {
  const topo::Topology t = topo::generateTopology("nodes=1,ranks=2049");
  const topo::Placement placement = topo::Placement::parse(t, "block", 2049);
  const topo::RingReport r =
      topo::reportRings(t, placement, {"one node", "block", 2049, 1 << 20}, 0, "", true);
  EXPECT_FALSE(r.loads.has_value());
  const std::string text = report::ringShowText(r, t, 12);
  EXPECT_EQ(lines(text).back(),
            "# link table left out: p 2049 > 2048 would need the whole schedule; see ringlab sim");
  EXPECT_EQ(text.find("# apply:"), std::string::npos);
}

// One 1 MiB gradient ready at 1 ms of a 2 ms backward, priced at 2 ms from a measured curve:
// every plan is that one bucket, done at 3 ms, 1 ms exposed, iteration 1 + 3 + 0.5 = 4.5 ms.
TEST(ReportPlanTable, PrintsTheHeaderAndOneRowPerPlan) {
  plan::Timeline t;
  t.tensors = {{"w", 1 << 18, DataType::Float32, 1e-3, std::nullopt}};
  t.backwardEnd_s = 2e-3;
  t.forward_s = 1e-3;
  t.optimizerStep_s = 0.5e-3;
  const plan::BucketCost cost(2, DataType::Float32,
                              model::MeasuredCurve({{1 << 20, 2e-3}, {2 << 20, 4e-3}}, "test"));
  const plan::PlanComparison c = plan::comparePlans(t, cost);
  const plan::PlanContext context{2, "measured test curve", "measured t.json", "no copies"};
  const std::vector<std::string> l = lines(report::planTable(t, t, c, context, true));
  ASSERT_EQ(l.size(), 5 + c.plans.size() + 2);
  EXPECT_EQ(l[0],
            "# ringlab plan: 1 tensors, 1 MiB float32, backward 2000 us as recorded (2000 us with "
            "bucket copies), p = 2");
  EXPECT_EQ(l[1], "# measured test curve  [measured t.json]");
  EXPECT_EQ(l[2],
            "# execution model: one communication stream, buckets in order; a bucket starts when "
            "its last gradient is ready and the previous bucket is done; cost = measured "
            "AllReduce time; no copies");
  EXPECT_EQ(l[4],
            "# plan              buckets  last done(us)  exposed(us)  iteration(us) vs optimal  "
            "note");
  EXPECT_EQ(l[5],
            "  optimal                 1         3000.0       1000.0         4500.0       0.0%  "
            "dynamic programme over contiguous buckets in ready order");
  EXPECT_EQ(l[5 + c.plans.size()], "# optimal bucket starts (tensor indices in ready order): 0");
  EXPECT_EQ(l.back().rfind("# DDP: pass bucket_cap_mb=", 0), 0u) << l.back();
}

}  // namespace
