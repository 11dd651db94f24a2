// Progress reports of the library's long computations (core/progress.hpp): each one's sequence of
// callbacks, with counts that never go back, a fixed total, and an end at that total; and the
// line a front end draws from them (report/progress_text.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ringlab/core/progress.hpp"
#include "ringlab/measure/bench.hpp"
#include "ringlab/measure/calibrate.hpp"
#include "ringlab/measure/tune.hpp"
#include "ringlab/plan/compare.hpp"
#include "ringlab/report/bench_table.hpp"
#include "ringlab/report/progress_text.hpp"
#include "ringlab/sim/allreduce_sim.hpp"
#include "ringlab/topo/generators.hpp"
#include "ringlab/topo/ring_search.hpp"

namespace ringlab {
namespace {

// Every report a computation made.
struct Recorder {
  std::vector<Progress> seen;
  ProgressCallback callback() {
    return [this](const Progress& p) { seen.push_back(p); };
  }
  std::vector<std::string> stages() const {
    std::vector<std::string> out;
    for (const Progress& p : seen) {
      if (out.empty() || out.back() != p.stage) out.push_back(p.stage);
    }
    return out;
  }
};

// The contract: one total throughout, done never decreasing, never past the total, ending there.
void expectWellFormed(const Recorder& r, std::uint64_t total) {
  ASSERT_FALSE(r.seen.empty());
  std::uint64_t previous = 0;
  for (const Progress& p : r.seen) {
    EXPECT_EQ(p.total, total) << p.stage;
    EXPECT_GE(p.done, previous) << p.stage;
    EXPECT_LE(p.done, p.total) << p.stage;
    previous = p.done;
  }
  EXPECT_EQ(r.seen.back().done, total);
}

TEST(ProgressMeter, ReportsStagesThrottlesAndEndsAtTheTotal) {
  Recorder r;
  ProgressMeter meter(r.callback(), 10'000);
  meter.stage("first");
  for (int i = 0; i < 5'000; ++i) meter.advance();
  meter.stage("second");
  for (int i = 0; i < 6'000; ++i) meter.advance();  // 1,000 past the total: clamped
  expectWellFormed(r, 10'000);
  // A report per 10 units (1/1000 of the total) and one per stage, not one per unit.
  EXPECT_EQ(r.seen.size(), 1000u + 2);
  EXPECT_EQ(r.stages(), (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(r.seen[1].done, 10u);
}

TEST(ProgressMeter, ReachesAnUnevenTotalAndIgnoresAnEmptyCallback) {
  Recorder r;
  ProgressMeter meter(r.callback(), 2'999);  // step 2: 2,998 reports at even counts, then 2,999
  for (int i = 0; i < 2'999; ++i) meter.advance();
  expectWellFormed(r, 2'999);
  EXPECT_EQ(r.seen.size(), 1'499u + 1);
  ProgressMeter silent({}, 3);
  silent.stage("nobody listens");
  silent.advance(3);  // no callback: nothing to call, nothing thrown
}

TEST(Progress, BenchReportsEverySizeOnRankZero) {
  measure::BenchConfig config;
  config.ranks = 3;
  config.minBytes = 8;
  config.maxBytes = 512;
  config.stepFactor = 4;  // 8, 32, 128, 512
  config.iterations = 1;
  config.warmup = 0;
  Recorder r;
  config.progress = r.callback();
  measure::runBenchThreads(config, [](const record::RecordRow&) {});
  expectWellFormed(r, 4);
  EXPECT_EQ(r.seen.size(), 8u) << "one report as each size starts, one as it ends";
  EXPECT_EQ(r.stages(), (std::vector<std::string>{"8 B", "32 B", "128 B", "512 B"}));
}

TEST(Progress, TuneCountsEverySizeOfEveryAlgorithmInEveryRound) {
  measure::TuneConfig config;
  config.ranks = 2;
  config.minBytes = 8;
  config.maxBytes = 128;  // 8, 32, 128
  config.iterations = 1;
  config.warmup = 0;
  config.rounds = 2;
  config.algorithms = {"ring", "recursive_doubling"};
  Recorder r;
  measure::tune(config, record::RunInfo{}, r.callback());
  expectWellFormed(r, 2 * 2 * 3);
  const std::vector<std::string> stages = r.stages();
  ASSERT_EQ(stages.size(), 12u);
  EXPECT_EQ(stages.front(), "ring 8 B (round 1/2)");
  EXPECT_EQ(stages[3], "recursive_doubling 8 B (round 1/2)");
  EXPECT_EQ(stages.back(), "recursive_doubling 128 B (round 2/2)");
}

TEST(Progress, CalibrateCountsPingPongsReductionsAndConcurrencySteps) {
  measure::CalibrateConfig config;
  config.minBytes = 8;
  config.maxBytes = 512;  // ping-pong 8, 32, 128, 512; reduce (in, out of place) 64 KiB-1 MiB;
                          // working sets 64, 128, 256 KiB (the least that shows a knee)
  config.iterations = 3;
  config.rounds = 1;
  Recorder r;
  measure::calibrate(config, r.callback());
  const std::vector<std::string> stages = r.stages();
  ASSERT_GE(stages.size(), 8u);
  const std::uint64_t total = stages.size();  // one unit per measurement, each its own stage
  expectWellFormed(r, total);
  EXPECT_EQ(stages[0], "ping-pong 8 B");
  EXPECT_EQ(stages[3], "ping-pong 512 B");
  EXPECT_EQ(stages[4], "reduce 64 KiB");
  EXPECT_EQ(stages[7], "reduce out of place 64 KiB");
  EXPECT_EQ(stages[10], "concurrency 1 pair");
  EXPECT_EQ(stages[stages.size() - 4].rfind("concurrency ", 0), 0u) << stages[stages.size() - 4];
  EXPECT_EQ(stages[stages.size() - 3], "working set 64 KiB");
  EXPECT_EQ(stages.back(), "working set 256 KiB");
  // Two interleaved rounds: every measurement twice, the second round starting half-way through.
  config.rounds = 2;
  Recorder two;
  measure::calibrate(config, two.callback());
  const std::vector<std::string> interleaved = two.stages();
  ASSERT_EQ(interleaved.size(), 2 * stages.size());
  expectWellFormed(two, interleaved.size());
  EXPECT_EQ(interleaved[stages.size()], stages[stages.size() / 2]);
  EXPECT_EQ(interleaved.back(), stages[stages.size() / 2 - 1]);
}

TEST(Progress, RingSearchCountsCandidatesAndSwapsPerRing) {
  const topo::Topology t = topo::generateTopology(
      "shape=fat-tree,nodes=16,ranks=4,rails=2,leaf=4,spines=4,intra=100GB/s,inter=10GB/s");
  const topo::Placement rr = topo::Placement::roundRobin(t, 64);
  Recorder r;
  topo::RingSearchOptions options;
  options.channels = 2;
  options.progress = r.callback();
  topo::searchRings(t, rr, options);
  const std::uint64_t total = r.seen.front().total;
  EXPECT_GT(total, 2u * 64) << "candidates and swaps of two rings";
  expectWellFormed(r, total);
  EXPECT_EQ(r.stages(),
            (std::vector<std::string>{"rank order", "ring 1/2: candidates", "ring 1/2: swap search",
                                      "ring 2/2: candidates", "ring 2/2: swap search",
                                      "pricing the rings found"}));

  Recorder exact;  // p <= kExactRanks: branch and bound, one unit for the ring
  options.channels = 1;
  options.progress = exact.callback();
  topo::searchRings(t, topo::Placement::roundRobin(t, 8), options);
  expectWellFormed(exact, 3);
}

TEST(Progress, SimulatedSweepReportsEverySize) {
  const topo::Topology t = topo::generateTopology("nodes=2,ranks=4");
  const topo::Placement block = topo::Placement::block(t, 8);
  const sim::AllReduceSim allReduce(schedule::AlgorithmSpec{}, 8, 1ull << 30, "limit");
  sim::SimResult last;
  Recorder r;
  sim::simulateSizes(t, block, allReduce, {64, 4096, 1 << 20}, DataType::Float32, {}, last, {},
                     r.callback());
  expectWellFormed(r, 3);
  EXPECT_EQ(r.stages(), (std::vector<std::string>{"64 B", "4 KiB", "1 MiB"}));
}

TEST(Progress, PlanComparisonReportsEachStepAndPlan) {
  plan::Timeline timeline;
  timeline.source = "test";
  for (int i = 0; i < 20; ++i) {
    std::string name = "g";  // appended, not operator+: GCC 12 warns falsely (-Wrestrict) there
    name += std::to_string(i);
    timeline.tensors.push_back(
        {name, 1000u * (i + 1), DataType::Float32, 1e-4 * (i + 1), std::nullopt});
  }
  timeline.backwardEnd_s = 3e-3;
  model::ModelParams params;
  params.link = {5e-6, 1 / 10e9};
  const plan::BucketCost cost(4, DataType::Float32, params);
  Recorder r;
  plan::CompareOptions options;
  options.ddpCapBytes = {1 << 20};
  options.progress = r.callback();
  const plan::PlanComparison c = plan::comparePlans(timeline, cost, options);
  expectWellFormed(r, 2 + c.plans.size());
  const std::vector<std::string> stages = r.stages();
  ASSERT_EQ(stages.size(), 2 + c.plans.size());
  EXPECT_EQ(stages[0], "optimal buckets");
  EXPECT_EQ(stages[1], "ddp cap search");
  for (std::size_t i = 0; i < c.plans.size(); ++i) EXPECT_EQ(stages[2 + i], c.plans[i].name);
  EXPECT_EQ(c.plans[2].note.rfind("bucket_cap_mb ", 0), 0u) << "ddp-best-cap names its cap";
}

TEST(ProgressText, StageCountsAndElapsedTime) {
  EXPECT_EQ(report::progressText("tune", {"ring 64 KiB (round 1/2)", 37, 120}, 12.7),
            "tune: ring 64 KiB (round 1/2) 37/120  12 s");
  EXPECT_EQ(report::progressText("topo search", {"ring 1/1: swap search", 5, 9}, 125.2),
            "topo search: ring 1/1: swap search 5/9  2 min 05 s");
}

TEST(Oversubscription, SaysSoOnlyWhenTheRanksOnThisHostOutnumberItsCores) {
  EXPECT_EQ(report::oversubscription(8, 8, 2),
            "# p = 8 ranks on 2 cores: oversubscribed, times include waiting for a core\n");
  EXPECT_EQ(report::oversubscription(4, 16, 1),
            "# 4 of the p = 16 ranks on this host's 1 core: oversubscribed, times include waiting "
            "for a core\n");
  EXPECT_EQ(report::oversubscription(2, 2, 2), "");
  EXPECT_EQ(report::oversubscription(0, 64, 2), "") << "unknown: nothing claimed";
}

}  // namespace
}  // namespace ringlab
