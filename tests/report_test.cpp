// The text renderings of the report layer that `ringlab topo show|search`, `ringlab sim`,
// `ringlab plan`, `ringlab model` and `ringlab verify` print (and sim's record), held here line by
// line on small cases whose figures can be checked by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ringlab/measure/calibrate.hpp"
#include "ringlab/model/measured_curve.hpp"
#include "ringlab/model/model_json.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/record/sim_record.hpp"
#include "ringlab/report/bench_table.hpp"
#include "ringlab/report/calibration.hpp"
#include "ringlab/report/model_text.hpp"
#include "ringlab/report/plan_table.hpp"
#include "ringlab/report/ring_report_text.hpp"
#include "ringlab/report/schedule_text.hpp"
#include "ringlab/report/sim_text.hpp"
#include "ringlab/report/tune_text.hpp"
#include "ringlab/sim/allreduce_sim.hpp"
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
  const std::vector<std::string> l =
      lines(report::ringSearchText(t.report(false), t.topology, "ringlab bench --ring-order"));
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
  // Without a front end's way to apply it, the library's own words.
  EXPECT_EQ(lines(report::ringSearchText(t.report(false), t.topology))[8],
            "# apply: the ring order 0,2,3,1");
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

// `ringlab sim` on TwoNodes: the ring in rank order simulated over 16 MiB takes the time predicted
// above, 1006669.0 us; each NIC carries 6 x 2 x 4 MiB = 50331648 B in that time, 100%.
struct TwoNodesRing : TwoNodes {
  sim::SimResult last;
  std::vector<sim::SimRow> rows;
  TwoNodesRing() {
    const sim::AllReduceSim ring(schedule::AlgorithmSpec{}, 4, 1ull << 30, "test");
    rows = sim::simulateSizes(topology, placement, ring, {16 << 20}, DataType::Float32, {}, last);
  }
};

record::RunInfo runInfo() {
  record::RunInfo info;
  info.version = "v1";
  info.host = "h";
  info.date = "2026-01-01T00:00:00Z";
  info.transport = "simulated";
  info.algorithm = "ring";
  info.ringOrder = "0,2,3,1";
  info.ranks = 4;
  info.dtype = "float32";
  info.op = "sum";
  return info;
}

TEST(SimText, PreambleNamesTheRunThenPrintsBenchsTableHeader) {
  record::SimRun run;
  run.info = runInfo();
  run.topology = "two nodes";
  run.placement = "round-robin";
  run.searchMethod = "exhaustive";
  run.gammaSPerByte = 1e-10;
  run.reduceBandwidth = "10GB/s";
  const std::vector<std::string> l = lines(report::simPreamble(run));
  ASSERT_EQ(l.size(), 10u);
  EXPECT_EQ(l[0], "# ringlab sim: allreduce  algorithm ring  transport simulated  p 4");
  EXPECT_EQ(l[1], "# version v1  host h  date 2026-01-01T00:00:00Z");
  EXPECT_EQ(l[2], "# ring order 0,2,3,1  searched (exhaustive)");
  EXPECT_EQ(l[3], "# topology: two nodes");
  EXPECT_EQ(l[4], "# placement: round-robin");
  EXPECT_EQ(l[5], "# reduction: gamma 1e-10 s/B (10GB/s) on the receiving rank");
  EXPECT_EQ(l[6].rfind("# time: simulated completion of the slowest rank", 0), 0u) << l[6];
  EXPECT_EQ(l[7] + "\n" + l[8] + "\n" + l[9] + "\n", report::benchTableHeader({}));

  run.searchMethod.clear();
  run.gammaSPerByte = 0;
  const std::vector<std::string> free = lines(report::simPreamble(run));
  EXPECT_EQ(free[2], "# ring order 0,2,3,1");
  EXPECT_EQ(free[5], "# reduction: free (no reduction cost or rate given)");
}

TEST(SimText, RowIsBenchsRowWithTheSameTimeInPlaceAndNoWrongCount) {
  const TwoNodesRing t;
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(report::simTableRow(t.rows[0], runInfo()),
            "      16777216      4194304  float32    sum 1006669.0    0.02    0.02    N/A "
            "1006669.0    0.02    0.02    N/A\n");
}

// After bench's table: per row, out of place, the wall time (loop mean), the slowest rank's and
// all ranks' CPU time per call, and the cores they kept busy (all ranks' CPU over the wall time).
TEST(ReportBenchTable, CpuTimePerCallBesideTheWallTime) {
  record::RunRecord record;
  record::RecordRow row;
  row.bytes = 4096;
  row.dtype = "float32";
  row.op = "sum";
  record::Timing t;
  t.timeUs = 90;
  t.loopMeanUs = 100;
  t.cpuMaxUs = 80;
  t.cpuSumUs = 150;
  row.outOfPlace = t;
  record.rows = {row};
  const std::string text = report::cpuTimeTable(record, 2);
  EXPECT_NE(text.find("wall: the slowest rank's loop mean (-a 3)"), std::string::npos) << text;
  EXPECT_NE(text.find("cores kept busy of 2"), std::string::npos) << text;
  EXPECT_NE(
      text.find("#         4096  float32    sum      100.0         80.0        150.0   1.50\n"),
      std::string::npos)
      << text;
}

TEST(SimText, CriticalPathListsStepsAndTimeShifts) {
  const TwoNodesRing t;
  const std::vector<std::string> l = lines(report::simCriticalPath(t.last, t.topology));
  ASSERT_EQ(l.size(), 11u);
  EXPECT_EQ(l[0],
            "# critical path of the largest size (step, transfer, start -> end, lowest-rate "
            "link), 10 entries:");
  EXPECT_EQ(l[1], "#   step 0  0 -> 1  0.0 -> 167778.2 us  n0.nic0->switch");
  EXPECT_EQ(l[4], "#   step 0  3 -> 0  0.0 -> 167778.2 us  n1.nic0->switch");
  EXPECT_EQ(l[5], "#   steps 1..2 repeat as a time shift  167778.2 -> 503334.5 us");
  EXPECT_EQ(l[6], "#   step 3  0 -> 1  503334.5 -> 671112.6 us  n0.nic0->switch");
  EXPECT_EQ(l[10], "#   steps 4..5 repeat as a time shift  671112.6 -> 1006669.0 us");
}

// A path longer than 4 + 16 entries keeps its first 4 and last 16; a transfer without a
// bottleneck link shows "-".
TEST(SimText, CriticalPathElidesTheMiddleOfALongPath) {
  const TwoNodesRing t;
  sim::SimResult r;
  for (int s = 0; s < 25; ++s)
    r.criticalPath.push_back({std::uint64_t(s), 1, 0, 1, s * 1e-6, (s + 1) * 1e-6, -1});
  const std::vector<std::string> l = lines(report::simCriticalPath(r, t.topology));
  ASSERT_EQ(l.size(), 1u + 4 + 1 + 16);
  EXPECT_EQ(l[4], "#   step 3  0 -> 1  3.0 -> 4.0 us  -");
  EXPECT_EQ(l[5], "#   ... 5 entries ...");
  EXPECT_EQ(l[6], "#   step 9  0 -> 1  9.0 -> 10.0 us  -");
}

TEST(SimText, BusiestLinksByUtilisation) {
  const TwoNodesRing t;
  const std::vector<std::string> l = lines(report::simBusiestLinks(t.last, t.topology, 2));
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0], "# busiest links at the largest size: utilisation = bytes / (bandwidth x time)");
  EXPECT_EQ(l[1], "#   n0.nic0->switch                   100.0%  50331648 B");
  EXPECT_EQ(l[2], "#   switch->n0.nic0                   100.0%  50331648 B");
  EXPECT_EQ(lines(report::simBusiestLinks(t.last, t.topology, 100)).size(),
            1 + t.topology.links().size());
}

TEST(SimRecord, RunInfoCutsALongRingOrder) {
  schedule::AlgorithmSpec spec;
  const record::RunInfo small =
      record::simRunInfo(spec, "t", "p", 4, DataType::Int32, ReduceOp::Max);
  EXPECT_EQ(small.transport, "simulated");
  EXPECT_EQ(small.algorithm, "ring");
  EXPECT_EQ(small.ringOrder, "0,1,2,3");
  EXPECT_EQ(small.topology, "t; placement p");
  EXPECT_EQ(small.ranks, 4);
  EXPECT_EQ(small.dtype, "int32");
  EXPECT_EQ(small.op, "max");
  const record::RunInfo large =
      record::simRunInfo(spec, "t", "p", 64, DataType::Int32, ReduceOp::Max);
  EXPECT_EQ(large.ringOrder.size(), 120u);
  EXPECT_EQ(large.ringOrder.substr(0, 6), "0,1,2,");
  EXPECT_EQ(large.ringOrder.substr(117), "...");
}

TEST(SimRecord, JsonHoldsTheRunPlacementGammaAndRows) {
  const TwoNodesRing t;
  record::SimRun run;
  run.info = runInfo();
  run.placement = "round-robin";
  run.gammaSPerByte = 1e-10;
  const nlohmann::json j = record::simRecordJson(run, t.rows);
  EXPECT_EQ(j["run"], record::toJson(run.info));
  EXPECT_EQ(j["placement"], "round-robin");
  EXPECT_EQ(j["gamma_s_per_byte"], 1e-10);
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["size_bytes"], 16u << 20);
  EXPECT_NEAR(j["rows"][0]["time_us"].get<double>(), 1006669.0, 0.05);
  EXPECT_EQ(j["rows"][0]["simulated_steps"], t.rows[0].simulatedSteps);
}

// alpha 5 us, 12.5 GB/s per direction (beta 0.08 ns/B), gamma 0, p = 4, 1 MiB of float32. The
// ring: 2(p-1) = 6 steps, startup 30 us, bandwidth 2(p-1)/p x 1 MiB x beta = 125.83 us, and the
// busiest rank sends 1.5 MiB = 1572864 B (twice that sent and received).
model::Profile fourRanksProfile() {
  model::Profile profile;
  profile.params.link = {5e-6, 0.08e-9};
  return profile;
}

struct FourRanks {
  report::ModelBasis basis{fourRanksProfile(), "stated in the test"};
  const model::ModelParams& params = basis.profile.params;
};

TEST(ReportModelText, AtOneSizePrintsTheBasisAndOneRowPerAlgorithm) {
  const FourRanks f;
  const model::SizeRow row = model::predictSize(4, 262144, DataType::Float32, f.params, true);
  const std::vector<std::string> l =
      lines(report::modelSizeText(f.basis, 4, DataType::Float32, row));
  ASSERT_EQ(l.size(), 6 + row.predictions.size());
  EXPECT_EQ(l[0], "# ringlab model: allreduce of 1 MiB (262144 float32) over p = 4");
  EXPECT_EQ(l[1],
            "# alpha 5.000 us, beta 0.0800 ns/B (12.50 GB/s per direction), gamma 0.0000 ns/B, "
            "concurrent transfers unlimited  [stated in the test]");
  EXPECT_EQ(l[3],
            "# topology: none: uniform links, every pair of ranks alike (ringlab sim prices a "
            "topology)  placement: none");
  EXPECT_EQ(l[5],
            "# algorithm            steps        send (B)   send+recv (B)  startup(us) "
            "bandwidth(us)   reduce(us)     time(us)");
  EXPECT_EQ(l[6],
            "  ring                     6         1572864         3145728        30.00        "
            "125.83         0.00       155.83");
  // Rabenseifner: the ring's bandwidth term in 2 log2 p = 4 steps, the fastest here.
  EXPECT_EQ(l[8],
            "  rabenseifner             4         1572864         3145728        20.00        "
            "125.83         0.00       145.83  <- fastest");
}

TEST(ReportModelText, SweepPrintsATimeColumnPerAlgorithmAndTheCrossovers) {
  const FourRanks f;
  const model::SizeSweep sweep = model::sweepSizes(4, 256, 1024, DataType::Float32, f.params, true);
  const std::vector<std::string> l =
      lines(report::modelSweepText(f.basis, 4, DataType::Float32, sweep, "ringlab model --sweep"));
  ASSERT_EQ(l.size(), 5 + sweep.rows.size() + 1 + sweep.crossovers.size());
  EXPECT_EQ(l[0], "# ringlab model --sweep: allreduce over p = 4, float32");
  EXPECT_EQ(l[4],
            "#     size (B)            ring(us) recursive_doubling(us)    rabenseifner(us)   "
            "binomial_tree(us)  fastest");
  // 1 KiB: the ring 30 us + 1.5 KiB x 0.08 ns = 30.12 us; recursive doubling 10 + 0.16 us.
  EXPECT_EQ(l[5],
            "          1024               30.12               10.16               20.12        "
            "       20.33  recursive_doubling");
  EXPECT_EQ(l[5 + sweep.rows.size()],
            "# crossovers (exact, by bisection on the element count): none");
}

TEST(ReportModelText, VersusRanksPrintsTheRingTermsAgainstTheirLimit) {
  const FourRanks f;
  const auto rows = model::ringVersusRanks({2, 4}, 262144, DataType::Float32, f.params);
  const double limit_s = model::ringBandwidthLimit_s(1 << 20, f.params);
  const std::vector<std::string> l =
      lines(report::modelRanksText(f.basis, 1 << 20, rows, limit_s, "ringlab model --vs-p"));
  ASSERT_EQ(l.size(), 8u);
  EXPECT_EQ(l[0], "# ringlab model --vs-p: ring allreduce of 1 MiB as p grows");
  EXPECT_EQ(l[4],
            "# the bandwidth term 2(p-1)/p n beta approaches 2 n beta = 167.77 us and never "
            "shrinks; the startup term 2(p-1) alpha grows linearly in p");
  EXPECT_EQ(l[7], "       4      6          30.00          125.83            0.7500       155.83");
  const nlohmann::json json = model::ranksJson(rows, 1 << 20, DataType::Float32, limit_s);
  EXPECT_EQ(json["rows"][1]["p"], 4);
  EXPECT_FALSE(json["rows"][1].contains("reduce_us"));
  EXPECT_EQ(json["limit_2n_beta_us"], limit_s * 1e6);
}

TEST(ModelJson, AtOneSizeMarksTheFastestAndStatesNoTopology) {
  const FourRanks f;
  const nlohmann::json json =
      model::sizeJson(model::predictSize(4, 262144, DataType::Float32, f.params, true));
  ASSERT_EQ(json.size(), 4u);
  EXPECT_EQ(json[0]["algorithm"], "ring");
  EXPECT_EQ(json[0]["fastest"], false);
  EXPECT_EQ(json[2]["fastest"], true);
  EXPECT_EQ(json[0]["bytes_per_rank"]["send"], 1572864);
  EXPECT_TRUE(json[0]["bytes_per_rank"]["link-hop"].is_null());
  EXPECT_EQ(json[0]["placement"], "none");
}

// The ring at p = 3 on 12 B of float32: three blocks of one element; each rank sends 2(p-1) = 4
// of them (16 B) and receives as many.
struct ThreeRanks {
  schedule::AlgorithmSpec spec;
  schedule::Schedule s = model::buildSchedule(schedule::Collective::AllReduce, 3, spec);
  std::string listing() const {
    std::string text;
    report::writeScheduleSteps(s, spec, [&](std::string_view line) { text += line; });
    return text;
  }
};

TEST(ReportScheduleText, ListsEveryStepAfterTheHeader) {
  const std::vector<std::string> l = lines(ThreeRanks().listing());
  ASSERT_EQ(l.size(), 6u);
  EXPECT_EQ(l[0],
            "# ring allreduce, p = 3, ring order 0,1,2, ownership offset 0, 4 steps, 3 blocks");
  EXPECT_EQ(l[1],
            "# each entry: sender->receiver block, and whether the receiver reduces or copies");
  EXPECT_EQ(l[2], "step   1 reduce-scatter  0->1 b2 reduce | 1->2 b0 reduce | 2->0 b1 reduce");
  EXPECT_EQ(l[5], "step   4 allgather       0->1 b2 copy | 1->2 b0 copy | 2->0 b1 copy");
}

TEST(ReportScheduleText, VerdictSaysValidOrWhyNot) {
  ThreeRanks t;
  EXPECT_EQ(report::verdictLine(t.s, schedule::verify(t.s)),
            "verdict: valid: every rank's element is reduced over all 3 ranks exactly once\n");
  t.s.steps.pop_back();  // the last allgather step: a block never reaches one rank
  const schedule::Verdict verdict = schedule::verify(t.s);
  ASSERT_FALSE(verdict.valid);
  EXPECT_EQ(report::verdictLine(t.s, verdict), "verdict: INVALID: " + verdict.reason + "\n");
}

TEST(ReportScheduleText, VolumeListsEachRankAndTheRingClosedForm) {
  const ThreeRanks t;
  const std::vector<std::string> l = lines(report::volumeText(
      t.s, schedule::countVolume(t.s, 3, DataType::Float32), 12, DataType::Float32));
  ASSERT_EQ(l.size(), 6u);
  EXPECT_EQ(l[0], "volume for 12 B of float32 (3 elements), bytes per rank:");
  EXPECT_EQ(l[1], "    rank           send      send+recv");
  EXPECT_EQ(l[2], "       0             16             32");
  EXPECT_EQ(l[5], "closed form (send convention) 2(p-1)n/p = 16.0 bytes per rank");
}

}  // namespace

// calibrate's text: per size the median over rounds and their spread, the 95% intervals, and the
// verdict on the fit, stable or UNSTABLE with each reason.
TEST(ReportCalibration, IntervalsSpreadAndTheVerdict) {
  record::Calibration c;
  c.ranks = 2;
  c.rounds = 2;
  // Two rounds per size on the exact line 1 us + 1 ns/B, one round 10% high at 1 KiB.
  for (double bytes : {64.0, 1024.0, 16384.0}) {
    for (int round = 0; round < 2; ++round) {
      c.link.sizes.push_back(static_cast<std::uint64_t>(bytes));
      c.link.seconds.push_back((1e-6 + bytes * 1e-9) * (bytes == 1024 && round ? 1.1 : 1.0));
    }
  }
  c.link.fit = model::fitLineRelative({c.link.sizes.begin(), c.link.sizes.end()}, c.link.seconds);
  c.reduce = c.link;
  c.concurrency = {{1, 1e9, 1}};
  c.concurrentTransfers = 0;
  const model::Profile stable = measure::calibratedProfile(c, "shm", record::RunInfo{});
  const std::string text = report::calibrationText(c, stable);
  // 1 KiB: median of 2.024 us and 2.2264 us = 2.1252 us, spread 0.2024 / 2.1252 = 9.5%.
  EXPECT_NE(text.find("          1024          2.125       9.5%"), std::string::npos) << text;
  EXPECT_NE(text.find("# 95% intervals (t over the residuals): alpha "), std::string::npos) << text;
  EXPECT_NE(text.find("concurrent transfers: not measured (p < 4 holds one pair)"),
            std::string::npos)
      << text;
  model::Profile unstable = stable;
  unstable.unstable = {"ping-pong fit: R^2 = 0.500 (limit 0.9)"};
  const std::string flagged = report::calibrationText(c, unstable);
  EXPECT_NE(flagged.find("# UNSTABLE fit: do not trust this profile"), std::string::npos);
  EXPECT_NE(flagged.find("#   ping-pong fit: R^2 = 0.500 (limit 0.9)\n"), std::string::npos);
  EXPECT_EQ(flagged.find("# fit: stable"), std::string::npos);
  EXPECT_EQ(text.find("capped"), std::string::npos) << text;
  EXPECT_NE(text.find("# fused receives: none"), std::string::npos) << text;
  c.fusedReduceFromBytes = 131072;
  EXPECT_NE(report::calibrationText(c, measure::calibratedProfile(c, "shm", record::RunInfo{}))
                .find("# fused receives: reducing messages of 128 KiB and more are one pass"),
            std::string::npos);
  // Two pairs at 6.50x one pair: capped at 2, and said with the figure measured.
  c.concurrency = {{1, 3e9, 1}, {2, 19.5e9, 6.5}};
  c.concurrentTransfers = 2;
  c.concurrencyCapped = true;
  EXPECT_NE(report::calibrationText(c, stable).find(
                "# concurrent transfers: capped at the number of pairs (measured 6.50x one "
                "pair;"),
            std::string::npos);
}

namespace {

// A size where ring was kept though recursive_doubling looked 3% faster within the noise, and one
// it won clearly: the first is listed as undecided, the second not.
TEST(ReportTuneText, ListsTheSizesLeftUndecided) {
  const ringlab::record::TuneMethod method{{"ring", "recursive_doubling"}, 5, 5};
  ringlab::model::DecisionTable table;
  table.ranks = 4;
  table.defaultAlgorithm = "ring";
  ringlab::model::MeasuredSize tie{64, {{"ring", 100}, {"recursive_doubling", 97}}};
  tie.chosen = "ring";
  tie.margin = ringlab::model::Margin{"recursive_doubling", 0.97, 0.92, 1.03, 0.95};
  ringlab::model::MeasuredSize won{4096, {{"ring", 100}, {"recursive_doubling", 50}}};
  won.chosen = "recursive_doubling";
  won.margin = ringlab::model::Margin{"recursive_doubling", 0.5, 0.45, 0.55, 0.95};
  table.measured = {tie, won};
  const std::string text = ringlab::report::tuneText(method, table);
  EXPECT_NE(text.find("# undecided (bytes): 64: ring kept, another algorithm looked faster"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("undecided (bytes): 64, 4096"), std::string::npos) << text;
  EXPECT_NE(text.find("kept; recursive_doubling x0.970 [0.920, 1.030]"), std::string::npos);
}

}  // namespace
