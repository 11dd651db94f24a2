// The gradient-bucket planner: the dynamic programme against brute force on small instances, the
// baselines' rules on hand-checked cases, and every bad input named.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "expect_error.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/plan/baselines.hpp"
#include "ringlab/plan/chrome_trace.hpp"
#include "ringlab/plan/optimal.hpp"
#include "ringlab/plan/timeline_format.hpp"

namespace {

using namespace ringlab;
using namespace ringlab::plan;

model::ModelParams params(double alpha, double gbps) {
  model::ModelParams m;
  m.link.alpha_s = alpha;
  m.link.beta_s_per_byte = 1 / (gbps * 1e9);
  m.reduce.gamma_s_per_byte = 1 / 10e9;
  return m;
}

Timeline randomTimeline(std::mt19937& rng, std::size_t n) {
  Timeline t;
  t.source = "random";
  std::uniform_int_distribution<std::uint64_t> count(1, 400000);
  std::uniform_real_distribution<double> gap(0, 400e-6);
  double now = 0;
  for (std::size_t i = 0; i < n; ++i) {
    now += gap(rng);
    std::string name = "g";  // appended, not operator+: GCC 12 warns falsely (-Wrestrict) there
    name += std::to_string(i);
    t.tensors.push_back({name, count(rng), DataType::Float32, now, std::nullopt});
  }
  t.backwardEnd_s = now + gap(rng);
  return t;
}

using ringlab::test::expectInvalid;

// Every contiguous bucketing of n tensors (the 2^(n-1) subsets of possible starts 1..n-1): the
// least predicted iteration, and the fewest buckets of the bucketings that reach it.
struct Brute {
  double iteration_s = 1e300;
  std::size_t buckets = 0;
};
Brute bruteForceBest(const Timeline& t, const BucketCost& cost) {
  const std::size_t n = t.tensors.size();
  Brute best;
  for (std::uint64_t mask = 0; mask < (1ull << (n - 1)); ++mask) {
    std::vector<std::size_t> starts = {0};
    for (std::size_t i = 1; i < n; ++i) {
      if (mask >> (i - 1) & 1) starts.push_back(i);
    }
    const double iteration = predict(t, bucketsFromStarts(starts, n), cost).iteration_s;
    if (sameIteration(iteration, best.iteration_s)) {
      best.buckets = std::min(best.buckets, starts.size());
    } else if (iteration < best.iteration_s) {
      best = {iteration, starts.size()};
    }
  }
  return best;
}

// A host on which concurrent transfers slow down and large buckets stream from memory: the
// model's two regimes, so the cost has a jump at the cache size.
model::ModelParams twoRegimes(double alpha, double gbps) {
  model::ModelParams m = params(alpha, gbps);
  m.host.concurrent_transfers = 3;
  m.memory = {1 << 20, 3 * m.link.beta_s_per_byte, 2 * m.reduce.gamma_s_per_byte};
  return m;
}

// The recurrence itself, every j for every i: the reference for instances too big to enumerate.
// The least iteration is forward + max(backward end, C(n)) + step.
double plainRecurrence(const Timeline& t, const BucketCost& cost) {
  const std::size_t n = t.tensors.size();
  std::vector<double> done(n + 1, 0);
  for (std::size_t i = 1; i <= n; ++i) {
    done[i] = 1e300;
    std::uint64_t bytes = 0;
    for (std::size_t j = i; j-- > 0;) {
      bytes += t.tensors[j].bytes();
      done[i] =
          std::min(done[i], std::max(done[j], t.tensors[i - 1].ready_s) + cost.seconds(bytes));
    }
  }
  return t.forward_s + std::max(t.backwardEnd_s, done[n]) + t.optimizerStep_s;
}

// The iteration the plan's own buckets predict.
double iterationOf(const Timeline& t, const OptimalPlan& plan, const BucketCost& cost) {
  return predict(t, bucketsFromStarts(plan.starts, t.tensors.size()), cost).iteration_s;
}

TEST(PlanOptimal, PiecesReproduceTheCost) {
  std::mt19937_64 rng(3);
  for (int p : {1, 2, 3, 8, 12, 64}) {
    for (const model::ModelParams& m : {params(20e-6, 2), twoRegimes(20e-6, 2)}) {
      const BucketCost cost(p, DataType::Float32, m);
      const std::vector<CostPiece> pieces = cost.pieces();
      for (int trial = 0; trial < 2000; ++trial) {
        const std::uint64_t count = 1 + rng() % (trial % 2 ? 1 << 20 : std::uint64_t{1} << 34);
        double least = 1e300;
        for (const CostPiece& piece : pieces) {
          if (count >= piece.minCount && count <= piece.maxCount)
            least = std::min(least, piece.seconds(count));
        }
        ASSERT_NEAR(least, cost.seconds(4 * count), 1e-12 * cost.seconds(4 * count) + 1e-300)
            << "p " << p << " count " << count;
      }
    }
  }
}

TEST(PlanOptimal, MatchesTheFullRecurrenceOnLargerInstances) {
  std::mt19937 rng(9);
  for (int p : {2, 6, 8, 16}) {
    for (const model::ModelParams& m :
         {params(50e-6, 1), twoRegimes(5e-6, 0.3), params(2e-6, 20)}) {
      const Timeline t = randomTimeline(rng, 300);
      const BucketCost cost(p, DataType::Float32, m);
      const OptimalPlan plan = optimalBuckets(t, cost);
      const double least = plainRecurrence(t, cost);
      EXPECT_NEAR(iterationOf(t, plan, cost), least, 1e-9 * least) << "p " << p;
      EXPECT_NEAR(predict(t, bucketsFromStarts(plan.starts, 300), cost).lastDone_s, plan.lastDone_s,
                  1e-9 * plan.lastDone_s);
    }
  }
}

model::MeasuredCurve gloo() {
  return model::MeasuredCurve(
      {{4, 250e-6}, {65536, 800e-6}, {262144, 700e-6}, {1 << 20, 2.7e-3}, {4 << 20, 5.3e-3}},
      "gloo");
}

TEST(PlanMeasured, InterpolatesRaisesDipsAndExtrapolates) {
  const model::MeasuredCurve c = gloo();
  EXPECT_DOUBLE_EQ(c.seconds(1), 250e-6);                           // below the first size
  EXPECT_NEAR(c.seconds(32770), 525e-6, 1e-12);                     // halfway from 4 B to 64 KiB
  EXPECT_DOUBLE_EQ(c.points()[2].seconds, 800e-6);                  // the dip at 256 KiB raised
  EXPECT_NEAR(c.seconds(8 << 20), 5.3e-3 + 2.6e-3 * 4 / 3, 1e-12);  // the last line, extended
  for (std::uint64_t b = 1; b < (8 << 20); b = b * 3 / 2 + 1)
    EXPECT_LE(c.seconds(b), c.seconds(b * 3 / 2 + 1));
  const auto invalid = [](std::vector<model::MeasuredCurve::Point> pts, const std::string& needle) {
    expectInvalid([&] { model::MeasuredCurve(pts, "m.json"); }, needle);
  };
  invalid({{4, 1e-6}}, "m.json: 1 sizes; at least 2");
  invalid({{4, 1e-6}, {4, 2e-6}}, "size 4 bytes does not follow 4");
  invalid({{4, 1e-6}, {8, 0}}, "the time at 8 bytes is not a positive number");
}

TEST(PlanMeasured, PiecesAndTheOptimumFollowTheCurve) {
  const BucketCost cost(2, DataType::Float32, gloo());
  EXPECT_EQ(cost.algorithm(4096), "measured");
  std::mt19937_64 rng(4);
  const std::vector<CostPiece> pieces = cost.pieces();
  for (int trial = 0; trial < 5000; ++trial) {
    const std::uint64_t count = 1 + rng() % (trial % 2 ? 1 << 16 : 1 << 22);
    double least = 1e300;
    for (const CostPiece& piece : pieces) {
      if (count >= piece.minCount && count <= piece.maxCount)
        least = std::min(least, piece.seconds(count));
    }
    ASSERT_NEAR(least, cost.seconds(4 * count), 1e-12) << count;
  }
  std::mt19937 trng(11);
  for (int trial = 0; trial < 4; ++trial) {
    const Timeline t = randomTimeline(trng, 200);
    EXPECT_NEAR(iterationOf(t, optimalBuckets(t, cost), cost), plainRecurrence(t, cost), 1e-12);
  }
}

TEST(PlanOptimal, MatchesBruteForceOnSmallInstances) {
  std::mt19937 rng(8);
  // Regimes: startup-bound (slow alpha), bandwidth-bound, with the bucket copy priced, and a
  // contended host with a memory regime.
  const std::vector<std::pair<model::ModelParams, double>> regimes = {{params(200e-6, 10), 0},
                                                                      {params(2e-6, 0.5), 0},
                                                                      {params(20e-6, 2), 0.2e9},
                                                                      {twoRegimes(5e-6, 1), 0}};
  for (int p : {2, 5, 8, 12}) {
    for (const auto& [m, copy] : regimes) {
      for (int trial = 0; trial < 6; ++trial) {
        const Timeline t = withBucketCopies(randomTimeline(rng, 2 + trial % 9), copy, false);
        const BucketCost cost(p, DataType::Float32, m);
        const OptimalPlan plan = optimalBuckets(t, cost);
        const Brute brute = bruteForceBest(t, cost);
        EXPECT_NEAR(iterationOf(t, plan, cost), brute.iteration_s, 1e-12)
            << "p " << p << " n " << t.tensors.size();
        EXPECT_EQ(plan.starts.size(), brute.buckets) << "p " << p << " n " << t.tensors.size();
        EXPECT_TRUE(plan.fewest);
        // The reported optimum is what its own buckets price to.
        EXPECT_NEAR(predict(t, bucketsFromStarts(plan.starts, t.tensors.size()), cost).lastDone_s,
                    plan.lastDone_s, 1e-12);
      }
    }
  }
}

// Equal gradients of `count` elements ready every `gap`, and a backward that ends `tail` after
// the last.
Timeline evenBackward(std::size_t n, std::uint64_t count, double gap, double tail) {
  Timeline t;
  t.source = "even";
  for (std::size_t i = 0; i < n; ++i) {
    std::string name = "g";  // appended, not operator+: GCC 12 warns falsely (-Wrestrict) there
    name += std::to_string(i);
    t.tensors.push_back({name, count, DataType::Float32, gap * static_cast<double>(i + 1), {}});
  }
  t.backwardEnd_s = t.tensors.back().ready_s + tail;
  t.forward_s = 2e-3;
  t.optimizerStep_s = 0.3e-3;
  return t;
}

TEST(PlanOptimal, TiesGoToTheFewestBucketsWhenTheBackwardHidesTheCommunication) {
  // 12 gradients of 1 MiB, one every 0.5 ms, at 10 GB/s: every plan that keeps up is done by the
  // backward's end, 2 ms after the last gradient. The earliest-done plan is one bucket per
  // gradient; the planner must return the fewest buckets that still hide the communication.
  const Timeline t = evenBackward(12, 1 << 18, 0.5e-3, 2e-3);
  const BucketCost cost(8, DataType::Float32, params(20e-6, 10));
  const OptimalPlan plan = optimalBuckets(t, cost);
  const Brute brute = bruteForceBest(t, cost);
  const double hidden = t.forward_s + t.backwardEnd_s + t.optimizerStep_s;
  EXPECT_DOUBLE_EQ(brute.iteration_s, hidden);
  EXPECT_EQ(plan.starts.size(), brute.buckets);
  EXPECT_LT(plan.starts.size(), 12u);  // not the per-tensor plan, which ties
  EXPECT_TRUE(plan.fewest);
  EXPECT_DOUBLE_EQ(iterationOf(t, plan, cost), hidden);
  EXPECT_DOUBLE_EQ(predict(t, perTensorBuckets(t), cost).iteration_s, hidden);
  EXPECT_LE(plan.lastDone_s, t.backwardEnd_s);

  // DDP: the largest cap that still hides it, and every smaller one on the grid as good.
  const DdpCapChoice ddp = bestDdpCap(t, cost);
  EXPECT_DOUBLE_EQ(ddp.iteration_s, hidden);
  EXPECT_EQ(ddp.asGoodFromBytes, kDdpCapSearchMinBytes);
  EXPECT_GT(predict(t, ddpBuckets(t, ddp.capBytes * 103 / 100), cost).iteration_s, hidden);
  for (std::uint64_t cap = kDdpCapSearchMinBytes; cap <= ddp.capBytes; cap = cap * 3 / 2)
    EXPECT_DOUBLE_EQ(predict(t, ddpBuckets(t, cap), cost).iteration_s, hidden) << cap;
}

TEST(PlanOptimal, ManyTiedPassesKeepTheFirstOptimumAndSaySo) {
  // A stream busy 99 % of the backward, with no startup cost: any merge leaves the stream idle
  // for a gap it never makes up, so the fewest buckets that keep up are about one per gradient,
  // more than kTieBreakPasses.
  const BucketCost cost(2, DataType::Float32, params(0, 10));
  const double each = cost.seconds(4 << 18);
  const Timeline t = evenBackward(2 * kTieBreakPasses, 1 << 18, each / 0.99, each);
  const OptimalPlan plan = optimalBuckets(t, cost);
  EXPECT_FALSE(plan.fewest);
  EXPECT_GT(plan.starts.size(), kTieBreakPasses);
  EXPECT_NEAR(iterationOf(t, plan, cost), plainRecurrence(t, cost), 1e-12);
}

TEST(PlanOptimal, NeverWorseThanAnyBaseline) {
  std::mt19937 rng(80);
  for (int trial = 0; trial < 10; ++trial) {
    const Timeline t = randomTimeline(rng, 40);
    const BucketCost cost(8, DataType::Float32, params(trial % 2 ? 50e-6 : 5e-6, 1));
    const double best = iterationOf(t, optimalBuckets(t, cost), cost);
    for (const auto& b : {ddpBuckets(t, kDdpDefaultCapBytes), perTensorBuckets(t), singleBucket(t),
                          mgwfbpBuckets(t, cost), horovodBuckets(t, cost)}) {
      EXPECT_LE(best, predict(t, b, cost).iteration_s + 1e-12);
    }
  }
}

Timeline fourTensors() {
  Timeline t;
  t.source = "four";
  const std::uint64_t mib = 1 << 20;
  // 0.5 MiB, 0.75 MiB, 10 MiB, 20 MiB of float32.
  t.tensors = {{"a", mib / 8, DataType::Float32, 1e-3, 3},
               {"b", 3 * mib / 16, DataType::Float32, 2e-3, 2},
               {"c", 10 * mib / 4, DataType::Float32, 3e-3, 1},
               {"d", 20 * mib / 4, DataType::Float32, 4e-3, 0}};
  t.backwardEnd_s = 5e-3;
  t.forward_s = 1e-3;
  t.optimizerStep_s = 0.5e-3;
  return t;
}

TEST(PlanBaselines, DdpClosesABucketOnceItReachesItsLimit) {
  const Timeline t = fourTensors();
  // First limit 1 MiB: a (0.5) + b (0.75) = 1.25 MiB >= 1 MiB closes it; then 25 MiB: c + d = 30
  // MiB.
  const auto b = ddpBuckets(t, kDdpDefaultCapBytes);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].tensors, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(b[1].tensors, (std::vector<std::size_t>{2, 3}));
  // A 5 MiB cap: c (10 MiB) alone, then d alone; parameters are never split.
  EXPECT_EQ(ddpBuckets(t, 5 << 20).size(), 3u);
}

TEST(PlanBaselines, DdpBucketsFollowReadyOrderWhateverTheParameterOrder) {
  Timeline t = fourTensors();
  // Parameter order a, b, c, d (reverse: d, c, b, a): torch 1.13 rebuilds DDP's buckets after the
  // first iteration in the order gradients became ready, a, b, c, d.
  t.tensors[0].paramIndex = 0;
  t.tensors[1].paramIndex = 1;
  t.tensors[2].paramIndex = 2;
  t.tensors[3].paramIndex = 3;
  const auto b = ddpBuckets(t, kDdpDefaultCapBytes);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].tensors, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(b[1].tensors, (std::vector<std::size_t>{2, 3}));
}

TEST(PlanBaselines, PerTensorSingleAndIterationTime) {
  const Timeline t = fourTensors();
  const BucketCost cost(2, DataType::Float32, params(10e-6, 1));
  EXPECT_EQ(perTensorBuckets(t).size(), 4u);
  const PredictedIteration one = predict(t, singleBucket(t), cost);
  ASSERT_EQ(one.buckets.size(), 1u);
  EXPECT_DOUBLE_EQ(one.buckets[0].start_s, 4e-3);  // the last gradient
  EXPECT_DOUBLE_EQ(one.lastDone_s, 4e-3 + cost.seconds(t.totalBytes()));
  EXPECT_DOUBLE_EQ(one.exposed_s, std::max(0.0, one.lastDone_s - 5e-3));
  EXPECT_DOUBLE_EQ(one.iteration_s, 1e-3 + std::max(5e-3, one.lastDone_s) + 0.5e-3);
}

TEST(PlanBaselines, HorovodFusesWhatIsReadyAtEachCycle) {
  Timeline t;
  t.source = "hvd";
  t.tensors = {{"a", 100, DataType::Float32, 0.2e-3, {}},
               {"b", 100, DataType::Float32, 0.7e-3, {}},
               {"c", 100, DataType::Float32, 2.5e-3, {}}};
  t.backwardEnd_s = 3e-3;
  const BucketCost cost(2, DataType::Float32, params(1e-6, 10));
  // Cycles at 0, 1 ms (a, b ready), 2 ms (nothing), 3 ms (c).
  const auto b = horovodBuckets(t, cost);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].tensors, (std::vector<std::size_t>{0, 1}));
  EXPECT_DOUBLE_EQ(b[0].notBefore_s, 1e-3);
  EXPECT_EQ(b[1].tensors, (std::vector<std::size_t>{2}));
  EXPECT_DOUBLE_EQ(b[1].notBefore_s, 3e-3);
  // A threshold smaller than two tensors splits a cycle's fusion.
  EXPECT_EQ(horovodBuckets(t, cost, 500).size(), 3u);
}

TEST(PlanBaselines, MgwfbpMergesWhileTheStreamIsBusy) {
  Timeline t;
  t.source = "mg";
  // A large first gradient keeps the stream busy while the two small ones arrive.
  t.tensors = {{"big", 25'000'000, DataType::Float32, 0, {}},
               {"s1", 10, DataType::Float32, 1e-3, {}},
               {"s2", 10, DataType::Float32, 2e-3, {}}};
  t.backwardEnd_s = 2e-3;
  const BucketCost cost(2, DataType::Float32, params(50e-6, 1));
  const auto b = mgwfbpBuckets(t, cost);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1].tensors, (std::vector<std::size_t>{1, 2}));
}

TEST(PlanBaselines, BestDdpCapIsNoWorseThanTheDefault) {
  std::mt19937 rng(3);
  const Timeline t = randomTimeline(rng, 60);
  const BucketCost cost(8, DataType::Float32, params(30e-6, 1));
  const DdpCapChoice c = bestDdpCap(t, cost);
  EXPECT_LE(c.iteration_s,
            predict(t, ddpBuckets(t, kDdpDefaultCapBytes), cost).iteration_s + 1e-12);
  EXPECT_DOUBLE_EQ(c.lastDone_s, predict(t, ddpBuckets(t, c.capBytes), cost).lastDone_s);
}

TEST(PlanCost, UsesTheAlgorithmAutoPicks) {
  const auto m = params(20e-6, 1);
  const BucketCost cost(8, DataType::Float32, m);
  EXPECT_EQ(cost.algorithm(8), "recursive_doubling");
  EXPECT_EQ(cost.algorithm(64 << 20), model::fastestAlgorithm(8, 16 << 20, DataType::Float32, m));
  schedule::AlgorithmSpec autoSpec;
  autoSpec.name = model::kAutoAlgorithm;
  EXPECT_DOUBLE_EQ(cost.seconds(64 << 20),
                   model::predictAllReduce(autoSpec, 8, 16 << 20, DataType::Float32, m).total_s());
  EXPECT_EQ(BucketCost(1, DataType::Float32, m).seconds(1 << 20), 0);
}

TEST(PlanCost, CopiesDelayTheBackwardAndTheStep) {
  const Timeline t = fourTensors();
  const Timeline c = withBucketCopies(t, 1e9, false);
  // 0.5 MiB then 0.75 MiB copied at 1 GB/s: the second gradient is later by both copies.
  EXPECT_NEAR(c.tensors[0].ready_s - t.tensors[0].ready_s, (1 << 19) / 1e9, 1e-15);
  EXPECT_NEAR(c.tensors[1].ready_s - t.tensors[1].ready_s, (5 << 18) / 1e9, 1e-15);
  EXPECT_NEAR(c.backwardEnd_s - t.backwardEnd_s, t.totalBytes() / 1e9, 1e-15);
  EXPECT_NEAR(c.optimizerStep_s - t.optimizerStep_s, t.totalBytes() / 1e9, 1e-15);
  EXPECT_DOUBLE_EQ(withBucketCopies(t, 1e9, true).tensors[1].ready_s, t.tensors[1].ready_s);
  EXPECT_DOUBLE_EQ(withBucketCopies(t, 0, false).backwardEnd_s, t.backwardEnd_s);
}

// --- bad input, each named ---

const char* kCsvHead =
    "# format = ringlab-grad-timeline/1\n# backward_end_us = 100\nname,count,dtype,ready_us\n";

TEST(PlanTimeline, CsvAndJsonRoundTrip) {
  const Timeline t =
      parseTimeline(std::string(kCsvHead) + "a,10,float32,5\nb,20,float32,50\n", "t.csv");
  ASSERT_EQ(t.tensors.size(), 2u);
  EXPECT_EQ(t.tensors[1].count, 20u);
  EXPECT_DOUBLE_EQ(t.tensors[1].ready_s, 50e-6);
  const Timeline back = parseTimeline(toJson(t).dump(), "t.json");
  EXPECT_EQ(back.tensors[1].name, "b");
  EXPECT_DOUBLE_EQ(back.backwardEnd_s, 100e-6);
}

TEST(PlanTimeline, BadRecordsAreNamed) {
  const std::string h = kCsvHead;
  expectInvalid([&] { parseTimeline(h + "a,0,float32,5\n", "t.csv"); }, "'a'): element count 0");
  expectInvalid([&] { parseTimeline(h + "a,-3,float32,5\n", "t.csv"); }, "element count -3");
  expectInvalid([&] { parseTimeline(h + "a,10,float32,50\nb,10,float32,5\n", "t.csv"); },
                "tensor 1 ('b'): ready at 5 us, before");
  expectInvalid([&] { parseTimeline(h + "a,10,float32,500\n", "t.csv"); },
                "after the backward's end");
  expectInvalid([&] { parseTimeline(h + "a,10,float32,5\na,10,float32,6\n", "t.csv"); },
                "tensor 1 ('a'): duplicate name");
  expectInvalid([&] { parseTimeline(h + "a,10,float32,-5\n", "t.csv"); }, "ready time -5 us");
  expectInvalid([&] { parseTimeline(h + "a,10,float32\n", "t.csv"); }, "line 4: 3 fields");
  expectInvalid([&] { parseTimeline("name,count,dtype,ready_us\na,1,float32,0\n", "t.csv"); },
                "backward_end_us");
  expectInvalid([&] { parseTimeline(h, "t.csv"); }, "no gradient tensors");
  expectInvalid(
      [&] {
        parseTimeline(
            R"({"format":"ringlab-grad-timeline/1","backward_end_us":10,"tensors":[{"name":"w","count":-4,"dtype":"float32","ready_us":1}]})",
            "t.json");
      },
      "tensor 0 ('w'): element count -4");
}

TEST(PlanTimeline, EvaluateStartsAreChecked) {
  expectInvalid([] { bucketsFromStarts({1, 2}, 4); }, "begin with 0");
  expectInvalid([] { bucketsFromStarts({0, 4}, 4); }, "bucket start 4 is out of range");
  expectInvalid([] { bucketsFromStarts({0, 2, 2}, 4); }, "strictly increasing");
}

// A torch.profiler trace of two iterations of a two-parameter model, with "Input Dims" on the
// AccumulateGrad events as torch builds with kineto write them under record_shapes=True (ours).
nlohmann::json twoIterationTrace(bool shapes = true) {
  nlohmann::json ev = nlohmann::json::array();
  const auto x = [&](const std::string& name, double ts, double dur, nlohmann::json dims) {
    nlohmann::json e = {{"ph", "X"}, {"name", name}, {"pid", 1},
                        {"tid", 1},  {"ts", ts},     {"dur", dur}};
    if (shapes && !dims.is_null()) e["args"] = {{"Input Dims", dims}};
    ev.push_back(e);
  };
  for (double base : {1000.0, 5000.0}) {
    x("aten::addmm", base - 500, 100, nullptr);  // forward: not part of the backward
    x("autograd::engine::evaluate_function: AddmmBackward0", base, 100, nullptr);
    x("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", base + 110, 10,
      nullptr);
    x("torch::autograd::AccumulateGrad", base + 111, 8, {{4}});  // bias ready at +119
    x("torch::autograd::AccumulateGrad", base + 200, base == 1000 ? 20 : 40,
      {{10, 4}});  // weight at +220 / +240
  }
  return {{"traceEvents", ev}};
}

TEST(PlanTrace, AccumulateGradShapesNameTheGradients) {
  // The bias is listed second in the model but ready first: the shapes say so.
  const std::vector<ParameterInfo> params = {{"fc.weight", 40, DataType::Float32},
                                             {"fc.bias", 4, DataType::Float32}};
  const Timeline t = timelineFromChromeTrace(twoIterationTrace(), params, "trace.json");
  ASSERT_EQ(t.tensors.size(), 2u);
  EXPECT_EQ(t.tensors[0].name, "fc.bias");
  EXPECT_DOUBLE_EQ(t.tensors[0].ready_s, 119e-6);
  EXPECT_EQ(t.tensors[1].name, "fc.weight");
  EXPECT_DOUBLE_EQ(t.tensors[1].ready_s, 230e-6);  // median of 220 and 240
  EXPECT_DOUBLE_EQ(t.backwardEnd_s, 230e-6);
  EXPECT_EQ(*t.tensors[1].paramIndex, 0u);
}

TEST(PlanTrace, GradientsTheTraceCannotTellApartAreRefusedNotGuessed) {
  const std::vector<ParameterInfo> params = {{"fc.weight", 40, DataType::Float32},
                                             {"fc.bias", 4, DataType::Float32}};
  expectInvalid([&] { timelineFromChromeTrace(twoIterationTrace(false), params, "t.json"); },
                "trace t.json: its AccumulateGrad events carry no shapes");
  expectInvalid([&] { timelineFromChromeTrace(twoIterationTrace(false), params, "t.json"); },
                "ready positions 0,1 (no shape) could be any of fc.weight, fc.bias; record the "
                "trace with ringlab.torch.timeline.mark_gradients(model)");
  // Shapes, but two parameters of 4 elements: which is ready first cannot be read.
  const std::vector<ParameterInfo> twins = {{"norm.weight", 4, DataType::Float32},
                                            {"norm.bias", 4, DataType::Float32}};
  nlohmann::json trace = twoIterationTrace();
  for (auto& e : trace["traceEvents"])
    if (e.contains("args")) e["args"]["Input Dims"] = {{4}};
  expectInvalid([&] { timelineFromChromeTrace(trace, twins, "t.json"); },
                "trace t.json: the trace cannot tell which parameter each gradient is: ready "
                "positions 0,1 (4 elements) could be any of norm.weight, norm.bias");
}

TEST(PlanTrace, ASingleParameterNeedsNoShape) {
  nlohmann::json ev = nlohmann::json::array();
  for (double base : {0.0, 1000.0}) {
    ev.push_back({{"ph", "X"},
                  {"name", "autograd::engine::evaluate_function: SumBackward0"},
                  {"tid", 1},
                  {"ts", base + 10},
                  {"dur", 5}});
    ev.push_back({{"ph", "X"},
                  {"name", "torch::autograd::AccumulateGrad"},
                  {"tid", 1},
                  {"ts", base + 20},
                  {"dur", base == 0 ? 10 : 20}});
  }
  const Timeline t = timelineFromChromeTrace(ev, {{"w", 8, DataType::Float32}}, "one.json");
  ASSERT_EQ(t.tensors.size(), 1u);
  EXPECT_DOUBLE_EQ(t.tensors[0].ready_s, 25e-6);  // median of 20 and 30 after each start
}

// Two iterations with ringlab's gradient markers; the second readies w1 before w0.
nlohmann::json markedTrace(const std::string& stranger = "") {
  nlohmann::json ev = nlohmann::json::array();
  const auto x = [&](const std::string& name, double ts) {
    ev.push_back({{"ph", "X"}, {"name", name}, {"pid", 1}, {"tid", 7}, {"ts", ts}, {"dur", 1}});
  };
  const std::string m = kGradReadyMarker;
  x("autograd::engine::evaluate_function: MeanBackward0", 100);
  x(m + "b0", 110);
  x(m + "w0", 120);
  x(m + (stranger.empty() ? "w1" : stranger), 130);
  x("autograd::engine::evaluate_function: MeanBackward0", 1000);
  x(m + "b0", 1012);
  x(m + "w1", 1025);
  x(m + "w0", 1040);
  return {{"traceEvents", ev}};
}

TEST(PlanTrace, MarkersNameTheGradientsAndTheirReadyTimes) {
  const std::vector<ParameterInfo> params = {
      {"w0", 10, DataType::Float32}, {"b0", 10, DataType::Float32}, {"w1", 5, DataType::Float32}};
  const Timeline t = timelineFromChromeTrace(markedTrace(), params, "m.json");
  ASSERT_EQ(t.tensors.size(), 3u);
  // Medians from each iteration's start: b0 (10, 12) 11, w1 (30, 25) 27.5, w0 (20, 40) 30.
  EXPECT_EQ(t.tensors[0].name, "b0");
  EXPECT_DOUBLE_EQ(t.tensors[0].ready_s, 11e-6);
  EXPECT_EQ(t.tensors[1].name, "w1");
  EXPECT_DOUBLE_EQ(t.tensors[1].ready_s, 27.5e-6);
  EXPECT_EQ(t.tensors[2].name, "w0");
  EXPECT_DOUBLE_EQ(t.tensors[2].ready_s, 30e-6);
  EXPECT_EQ(*t.tensors[2].paramIndex, 0u);
  EXPECT_DOUBLE_EQ(t.backwardEnd_s, 35e-6);  // median of 30 and 40
  expectInvalid([&] { timelineFromChromeTrace(markedTrace("x"), params, "m.json"); },
                "trace m.json: gradient 'x' is marked in the trace but not in the parameter list");
  const std::vector<ParameterInfo> more = {
      params[0], params[1], params[2], {"w2", 3, DataType::Float32}};
  expectInvalid([&] { timelineFromChromeTrace(markedTrace(), more, "m.json"); },
                "parameter 'w2' has 0 marked gradients, others 2");
}

TEST(PlanTrace, BadTracesAreNamed) {
  const std::vector<ParameterInfo> params = {{"fc.weight", 40, DataType::Float32},
                                             {"fc.bias", 4, DataType::Float32}};
  expectInvalid(
      [&] {
        timelineFromChromeTrace({{"traceEvents", nlohmann::json::array()}}, params, "empty.json");
      },
      "trace empty.json: no \"torch::autograd::AccumulateGrad\" events");
  const std::vector<ParameterInfo> three = {params[0], params[1], {"x", 1, DataType::Float32}};
  expectInvalid([&] { timelineFromChromeTrace(twoIterationTrace(), three, "t.json"); },
                "not a multiple of the 3 parameters");
  const std::vector<ParameterInfo> other = {{"fc.weight", 40, DataType::Float32},
                                            {"fc.bias", 5, DataType::Float32}};
  expectInvalid([&] { timelineFromChromeTrace(twoIterationTrace(), other, "t.json"); },
                "AccumulateGrad event 0 (4 elements) matches no remaining parameter");
  expectInvalid([] { parametersFromCsv("name,count,dtype\nw,0,float32\n", "p.csv"); },
                "parameter 'w': element count '0'");
}

}  // namespace
