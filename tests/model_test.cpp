// The closed forms against the schedules they describe, the textbook formulas, the fit, profiles
// and duration/bandwidth parsing.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "cost_expectations.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/cost.hpp"
#include "ringlab/model/decision_table.hpp"
#include "ringlab/model/fit.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/schedule/ring.hpp"

namespace ringlab::model {
namespace {

// Distinct, awkward parameters so that a term on the wrong coefficient shows.
const ModelParams kParams{{3.7e-6, 1.3e-10}, {0.71e-10, 0}, {0}, {0, 0, 0, 0}, {0, 0}};
// The same with a host that runs only 1.7 transfers at full speed at once.
const ModelParams kContended{{3.7e-6, 1.3e-10}, {0.71e-10, 0}, {1.7}, {0, 0, 0, 0}, {0, 0}};
// And with a 64 KiB cache beyond which data moves 3x and reduces 2.5x slower.
const ModelParams kTwoRegimes{
    {3.7e-6, 1.3e-10}, {0.71e-10, 0}, {1.7}, {65536, 3.9e-10, 1.775e-10, 0}, {0, 0}};
// And with a knee at 20000 B of working set on 3 cores sharing one cache: 4097 float32 elements
// (16388 B) fit alone, not with the scratch recursive doubling receives them into, nor with
// another rank's.
const ModelParams kScratchRegimes{
    {3.7e-6, 1.3e-10}, {0.71e-10, 0}, {1.7, 3}, {20000, 3.9e-10, 1.775e-10, 0, 3}, {0, 0}};
// And with reducing receives fused from 1000 B, in segments of 2000 B (awkward for float32).
const ModelParams kFused{
    {3.7e-6, 1.3e-10}, {0.71e-10, 0}, {1.7}, {65536, 3.9e-10, 1.775e-10, 0}, {1000, 2002}};
// And out of place, the senders' inputs left in the receivers' caches by the previous call.
const ModelParams kFusedInputCached{
    {3.7e-6, 1.3e-10}, {0.71e-10, 0}, {1.7}, {65536, 3.9e-10, 1.775e-10, 0}, {1000, 2002, true}};

TEST(ModelClosedForm, MatchesTheScheduleWalkForEveryAlgorithm) {
  const std::uint64_t counts[] = {0, 1, 5, 64, 1000, 1001, 4097, 1 << 20};
  for (int p = 1; p <= 33; ++p) {
    for (std::uint64_t count : counts) {
      for (const auto& algorithm : algorithmTable()) {
        if (!algorithm->closedForm) continue;
        const std::string& name = algorithm->name;
        schedule::AlgorithmSpec spec;
        spec.name = name;
        const schedule::Schedule s = model::buildSchedule(schedule::Collective::AllReduce, p, spec);
        for (const ModelParams& m :
             {kParams, kContended, kTwoRegimes, kScratchRegimes, kFused, kFusedInputCached}) {
          expectSameCost(predictAllReduce(spec, p, count, DataType::Float32, m),
                         scheduleCost(s, count, DataType::Float32, m),
                         name + " p=" + std::to_string(p) + " count=" + std::to_string(count) +
                             " concurrency=" + std::to_string(m.host.concurrent_transfers));
        }
      }
      const schedule::RingOrder order = schedule::RingOrder::identity(p);
      const std::string at = " p=" + std::to_string(p) + " count=" + std::to_string(count);
      expectSameCost(
          ringReduceScatterCost(p, count, 2, kParams),
          scheduleCost(schedule::ringReduceScatter(order), count, DataType::Float16, kParams),
          "ring reduce-scatter" + at);
      expectSameCost(
          ringAllGatherCost(p, count, 8, kParams),
          scheduleCost(schedule::ringAllGather(order), count, DataType::Float64, kParams),
          "ring allgather" + at);
    }
  }
}

// What the bucket planner relies on: within one memory regime, each closed form is
// R(count mod period) + B * floor(count / period). R and B are read off counts below one period
// and one far period, then checked at counts spread over every residue.
TEST(ModelClosedForm, IsPeriodicPlusLinearInTheCount) {
  std::mt19937_64 rng(5);
  for (int p : {1, 2, 3, 6, 8, 13, 64}) {
    for (const std::string& name : candidateAlgorithms()) {
      schedule::AlgorithmSpec spec;
      spec.name = name;
      const std::uint64_t period = countPeriod(name, p);
      const auto cost = [&](std::uint64_t c) {
        return predictAllReduce(spec, p, c, DataType::Float32, kContended).total_s();
      };
      const std::uint64_t far = 1 << 20;
      const double perPeriod = (cost(period * far) - cost(0)) / static_cast<double>(far);
      for (int trial = 0; trial < 200; ++trial) {
        const std::uint64_t c = rng() % (std::uint64_t{1} << 30);
        const double shaped = cost(c % period) + perPeriod * static_cast<double>(c / period);
        ASSERT_NEAR(shaped, cost(c), 1e-12 * cost(c)) << name << " p=" << p << " count=" << c;
      }
    }
  }
  EXPECT_EQ(countPeriod("multi_ring", 4), 4u);  // no closed form: its schedule's blocks
  EXPECT_THROW(countPeriod("no_such_algorithm", 4), Error);
}

TEST(ModelClosedForm, TextbookFormulasWhenPDividesTheCount) {
  // Thakur, Rabenseifner & Gropp (2005), n bytes, power-of-two p dividing the count.
  const double a = kParams.link.alpha_s, b = kParams.link.beta_s_per_byte,
               g = kParams.reduce.gamma_s_per_byte;
  for (int p : {2, 4, 8, 16, 32}) {
    const std::uint64_t count = 1024 * p;
    const double n = count * 4.0, lg = std::log2(p), f = (p - 1.0) / p;
    const auto total = [&](const Cost& c) { return c.total_s(); };
    EXPECT_NEAR(total(ringAllReduceCost(p, count, 4, kParams)),
                2 * (p - 1) * a + 2 * f * n * b + f * n * g, 1e-15);
    EXPECT_NEAR(total(recursiveDoublingCost(p, count, 4, kParams)), lg * (a + n * b + n * g),
                1e-15);
    EXPECT_NEAR(total(rabenseifnerCost(p, count, 4, kParams)),
                2 * lg * a + 2 * f * n * b + f * n * g, 1e-15);
    EXPECT_NEAR(total(binomialTreeCost(p, count, 4, kParams)), 2 * lg * (a + n * b) + lg * n * g,
                1e-15);
  }
}

TEST(ModelClosedForm, ContentionScalesBandwidthAndReduceTermsOnly) {
  // Ring at p = 8: 8 transfers per step on a host that runs 2 at full speed: 4x slower transfers.
  ModelParams two = kParams;
  two.host.concurrent_transfers = 2;
  const Cost free = ringAllReduceCost(8, 8000, 4, kParams),
             shared = ringAllReduceCost(8, 8000, 4, two);
  EXPECT_DOUBLE_EQ(shared.startup_s, free.startup_s);
  EXPECT_DOUBLE_EQ(shared.bandwidth_s, 4 * free.bandwidth_s);
  EXPECT_DOUBLE_EQ(shared.reduce_s, 4 * free.reduce_s);
  two.host.concurrent_transfers = 16;  // more than the transfers: no slowdown
  EXPECT_DOUBLE_EQ(ringAllReduceCost(8, 8000, 4, two).total_s(), free.total_s());
}

TEST(ModelClosedForm, MessagesBeyondTheCacheUseTheMemoryCoefficients) {
  // 64 KiB cache: 16384 float32 elements fit, 16388 do not.
  const Cost inCache = ringAllReduceCost(4, 16384, 4, kTwoRegimes);
  const Cost beyond = ringAllReduceCost(4, 16388, 4, kTwoRegimes);
  EXPECT_DOUBLE_EQ(inCache.bandwidth_s, 6 * 16384.0 * kTwoRegimes.link.beta_s_per_byte * (4 / 1.7));
  EXPECT_DOUBLE_EQ(beyond.bandwidth_s,
                   6 * 16388.0 * kTwoRegimes.memory.beta_mem_s_per_byte * (4 / 1.7));
  EXPECT_DOUBLE_EQ(beyond.reduce_s,
                   3 * 16388.0 * kTwoRegimes.memory.gamma_mem_s_per_byte * (4 / 1.7));
  EXPECT_DOUBLE_EQ(beyond.startup_s, inCache.startup_s);
}

// Out of place: the reduction into a separate output costs gamma_out_of_place (and its memory
// regime's) in every reducing step; the transfers and startups are the in-place ones. The output
// is in the working set too: 16384 elements (64 KiB) fit the 64 KiB knee in place, not with the
// output beside them.
TEST(ModelClosedForm, OutOfPlaceUsesTheOutOfPlaceKernel) {
  ModelParams m = kTwoRegimes;
  m.reduce.gamma_out_of_place_s_per_byte = 1.9e-10;
  m.memory.gamma_mem_out_of_place_s_per_byte = 4.3e-10;
  const ModelParams oop = forOutOfPlace(m);
  const double f = 3.0 / 4;  // (p - 1) / p of the vector reduced per rank, ring at p = 4
  for (std::uint64_t count : {8192ull, 16388ull}) {  // in the 64 KiB cache both ways, beyond it
    const Cost in = ringAllReduceCost(4, count, 4, m), out = ringAllReduceCost(4, count, 4, oop);
    const double gammaOut = count == 8192 ? 1.9e-10 : 4.3e-10;
    EXPECT_DOUBLE_EQ(out.reduce_s, f * count * 4 * gammaOut * (4 / 1.7)) << count;
    EXPECT_DOUBLE_EQ(out.bandwidth_s, in.bandwidth_s) << count;
    EXPECT_DOUBLE_EQ(out.startup_s, in.startup_s) << count;
    EXPECT_EQ(out.regime, in.regime) << count;
  }
  const Cost in = ringAllReduceCost(4, 16384, 4, m), out = ringAllReduceCost(4, 16384, 4, oop);
  EXPECT_EQ(in.regime, Regime::Cache);
  EXPECT_EQ(out.regime, Regime::Memory);
  EXPECT_DOUBLE_EQ(out.bandwidth_s, 6 * 16384.0 * 3.9e-10 * (4 / 1.7));
  EXPECT_DOUBLE_EQ(out.reduce_s, f * 16384 * 4 * 4.3e-10 * (4 / 1.7));
  // One regime and no out-of-place kernel measured: out of place is priced as in place.
  EXPECT_EQ(forOutOfPlace(kContended), kContended);
}

// The regime follows the job's working set, not the message: 8 MiB of float32 per rank, ring in
// place, on a host of 2 cores that share a cache whose knee is 32 MiB. At p = 2 the two ranks'
// buffers (16 MiB) fit; at p = 8 four ranks run on each core and the eight buffers (64 MiB) do
// not. Unlimited concurrency, so each closed form is the textbook one in its regime's beta and
// gamma.
TEST(ModelClosedForm, TheRegimeFollowsTheWorkingSetNotTheMessage) {
  ModelParams m{{2e-6, 0.04e-9}, {0.03e-9, 0}, {0, 2}, {32 << 20, 0.11e-9, 0.09e-9, 0, 2}, {0, 0}};
  const std::uint64_t count = 2 << 20, n = 8 << 20;
  const Cost two = ringAllReduceCost(2, count, 4, m), eight = ringAllReduceCost(8, count, 4, m);
  EXPECT_EQ(two.regime, Regime::Cache);
  EXPECT_EQ(eight.regime, Regime::Memory);
  EXPECT_DOUBLE_EQ(two.total_s(), 2 * 2e-6 + 2 * (n / 2.0) * 0.04e-9 + (n / 2.0) * 0.03e-9);
  EXPECT_DOUBLE_EQ(eight.total_s(), 14 * 2e-6 + 14 * (n / 8.0) * 0.11e-9 + 7 * (n / 8.0) * 0.09e-9);
  // Out of place at p = 2 the outputs double it past the knee: 32 MiB is still in, 32 MiB + 4 B
  // (one more element per rank) is not.
  EXPECT_EQ(ringAllReduceCost(2, count, 4, forOutOfPlace(m)).regime, Regime::Cache);
  EXPECT_EQ(ringAllReduceCost(2, count + 1, 4, forOutOfPlace(m)).regime, Regime::Memory);
  // A cache of each core's own: at p = 8 on 2 cores, four ranks' buffers (32 MiB) fit.
  m.memory.cache_cores = 1;
  EXPECT_EQ(ringAllReduceCost(8, count, 4, m).regime, Regime::Cache);
  // Cores not recorded: a core per rank, so a private cache holds one rank's 8 MiB at any p.
  m.host.cores = 0;
  EXPECT_DOUBLE_EQ(ranksSharingCache(m, 64), 1);
  m.memory.cache_cores = 2;
  EXPECT_DOUBLE_EQ(ranksSharingCache(m, 64), 2);
}

// The algorithm's scratch is in the working set: recursive doubling receives the partner's vector
// into scratch before reducing it, the ring does not (its segments reuse a few slots). With a
// 12 MiB knee at p = 1 core per rank (cores not recorded), 8 MiB in place: ring in cache,
// recursive doubling (16 MiB) beyond it, in its closed form and its walked schedule alike.
TEST(ModelClosedForm, AnAlgorithmsScratchCountsInTheWorkingSet) {
  const ModelParams m{
      {2e-6, 0.04e-9}, {0.03e-9, 0}, {0, 0}, {12 << 20, 0.11e-9, 0.09e-9, 0, 0}, {0, 0}};
  const std::uint64_t count = 2 << 20;
  EXPECT_EQ(ringAllReduceCost(4, count, 4, m).regime, Regime::Cache);
  EXPECT_EQ(recursiveDoublingCost(4, count, 4, m).regime, Regime::Memory);
  EXPECT_EQ(rabenseifnerCost(4, count, 4, m).regime, Regime::Cache);
  schedule::AlgorithmSpec spec;
  spec.name = "recursive_doubling";
  const schedule::Schedule s = buildSchedule(schedule::Collective::AllReduce, 4, spec);
  EXPECT_EQ(scheduleCost(s, count, DataType::Float32, m).regime, Regime::Memory);
  EXPECT_DOUBLE_EQ(recursiveDoublingCost(4, count, 4, m).total_s(),
                   2 * (2e-6 + (8 << 20) * 0.11e-9 + (8 << 20) * 0.09e-9));
}

// Fused receives (FusionParams): a reducing transfer whose messages (segments) are at least
// fused_reduce_from_bytes is one pass. Over the sender's input that a repeated out-of-place call
// left in the receiver's cache it costs its reduction only; over bytes that must cross from the
// sender's core, the slower of the crossing (beta) and the reduction (gamma). Copies (the
// allgather) keep beta. Messages of 128 KiB and up fused, segments of 256 KiB (shm's and the
// executor's defaults), float32.
ModelParams fusedFrom128KiB() {
  ModelParams m = kParams;
  m.fusion = {131072, 262144};
  return m;
}

ModelParams withSendersInputCached(ModelParams m) {
  m.fusion.sender_input_cached = true;
  return m;
}

TEST(ModelClosedForm, FusedReceivesCostTheReduceOnlyAtP2) {
  const ModelParams m = withSendersInputCached(fusedFrom128KiB());
  const double beta = m.link.beta_s_per_byte, gamma = m.reduce.gamma_s_per_byte;
  // 1 MiB: chunks of 512 KiB, two 256 KiB segments each: the reduce-scatter step is fused.
  const Cost big = ringAllReduceCost(2, 262144, 4, m);
  EXPECT_DOUBLE_EQ(big.bandwidth_s, 524288 * beta);
  EXPECT_DOUBLE_EQ(big.reduce_s, 524288 * gamma);
  EXPECT_DOUBLE_EQ(big.startup_s, 2 * m.link.alpha_s);
  EXPECT_DOUBLE_EQ(ringAllReduceCost(2, 262144, 4, kParams).bandwidth_s, 2 * 524288 * beta);
  // 128 KiB: chunks of 64 KiB, below the threshold: a copy and a reduce, as without the term.
  const Cost small = ringAllReduceCost(2, 32768, 4, m);
  EXPECT_DOUBLE_EQ(small.bandwidth_s, 2 * 65536 * beta);
  EXPECT_DOUBLE_EQ(small.reduce_s, 65536 * gamma);
  // 640 KiB: chunks of 320 KiB, one 256 KiB segment fused and a 64 KiB tail copied.
  EXPECT_DOUBLE_EQ(ringAllReduceCost(2, 163840, 4, m).bandwidth_s, (65536 + 327680) * beta);
  // Not cut into segments: the 320 KiB chunk is one fused message.
  ModelParams whole = m;
  whole.fusion.segment_bytes = 0;
  EXPECT_DOUBLE_EQ(ringAllReduceCost(2, 163840, 4, whole).bandwidth_s, 327680 * beta);
}

TEST(ModelClosedForm, FusedReceivesOfBytesThatCrossGoAtTheSlowerOfCrossingAndReducing) {
  // In place (the sender's input is the previous call's result, not in the receiver's cache):
  // the fused step goes at beta here (beta > gamma), paid as gamma plus the excess over it.
  const ModelParams m = fusedFrom128KiB();
  const double beta = m.link.beta_s_per_byte, gamma = m.reduce.gamma_s_per_byte;
  const Cost p2 = ringAllReduceCost(2, 262144, 4, m);
  EXPECT_DOUBLE_EQ(p2.bandwidth_s + p2.reduce_s, 524288 * beta + 524288 * beta);
  // p = 4 out of place: only the first reduce-scatter step reads the cached input; the other two
  // read partial sums the sender just wrote.
  const Cost p4 = ringAllReduceCost(4, 262144, 4, withSendersInputCached(m));
  EXPECT_DOUBLE_EQ(p4.bandwidth_s, 3 * 262144 * beta + 2 * 262144 * (beta - gamma));
  EXPECT_DOUBLE_EQ(p4.reduce_s, 3 * 262144 * gamma);
  // Where the cores reduce slower than they pass bytes, the reduction sets the pace: gamma only.
  ModelParams slowKernel = m;
  slowKernel.reduce.gamma_s_per_byte = 2 * beta;
  EXPECT_DOUBLE_EQ(ringAllReduceCost(2, 262144, 4, slowKernel).bandwidth_s, 524288 * beta);
  // Out of place is what sets the cache flag, and only where receives are fused.
  EXPECT_TRUE(forOutOfPlace(m).fusion.sender_input_cached);
  EXPECT_FALSE(forOutOfPlace(kParams).fusion.sender_input_cached);
  EXPECT_EQ(forOutOfPlace(kParams), kParams);
}

TEST(ModelClosedForm, FusedReceivesCostTheReduceOnlyAtP4) {
  const ModelParams m = withSendersInputCached(fusedFrom128KiB());
  const double beta = m.link.beta_s_per_byte, gamma = m.reduce.gamma_s_per_byte;
  // 1 MiB: chunks of 256 KiB: the 3 reduce-scatter steps fused (the two after the first over
  // partial sums, which cross: beta - gamma more each), the 3 allgather steps copy.
  const Cost big = ringAllReduceCost(4, 262144, 4, m);
  EXPECT_DOUBLE_EQ(big.bandwidth_s, 3 * 262144 * beta + 2 * 262144 * (beta - gamma));
  EXPECT_DOUBLE_EQ(big.reduce_s, 3 * 262144 * gamma);
  EXPECT_DOUBLE_EQ(big.startup_s, 6 * m.link.alpha_s);
  // 256 KiB: chunks of 64 KiB, below the threshold.
  const Cost small = ringAllReduceCost(4, 65536, 4, m);
  EXPECT_DOUBLE_EQ(small.bandwidth_s, 6 * 65536 * beta);
  EXPECT_DOUBLE_EQ(small.reduce_s, 3 * 65536 * gamma);
  // The schedule walk prices the same, on both sides of the threshold, cached or not.
  schedule::AlgorithmSpec ring;
  ring.name = "ring";
  const schedule::Schedule s = buildSchedule(schedule::Collective::AllReduce, 4, ring);
  for (const ModelParams& given : {m, fusedFrom128KiB()}) {
    for (std::uint64_t count : {65536ull, 262144ull})
      expectSameCost(ringAllReduceCost(4, count, 4, given),
                     scheduleCost(s, count, DataType::Float32, given),
                     "fused ring p=4 count=" + std::to_string(count));
  }
  // 0: never fused, whatever the size.
  ModelParams never = m;
  never.fusion.fused_reduce_from_bytes = 0;
  EXPECT_DOUBLE_EQ(ringAllReduceCost(4, 262144, 4, never).bandwidth_s, 6 * 262144 * beta);
}

TEST(ModelClosedForm, UnevenCountIsPricedByTheLargestChunk) {
  // 10 elements over 4 ranks: chunks of 3,3,2,2; every ring step moves 3 elements.
  const Cost c = ringAllReduceCost(4, 10, 4, kParams);
  EXPECT_EQ(c.steps, 6u);
  EXPECT_DOUBLE_EQ(c.bandwidth_s, 6 * 12 * kParams.link.beta_s_per_byte);
  EXPECT_DOUBLE_EQ(c.reduce_s, 3 * 12 * kParams.reduce.gamma_s_per_byte);
}

TEST(ModelClosedForm, SeedLimitsBandwidthTermTendsToTwoNBetaStartupGrowsLinearly) {
  const double n = 1 << 30;
  const ModelParams m{{5e-6, 1 / 12.5e9}, {0}, {0}, {0, 0, 0}, {0, 0}};
  double previous = 0;
  for (int p : {2, 4, 8, 64, 1024}) {
    const Cost c = ringAllReduceCost(p, static_cast<std::uint64_t>(n) / 4, 4, m);
    EXPECT_LT(c.bandwidth_s, 2 * n * m.link.beta_s_per_byte);
    EXPECT_GT(c.bandwidth_s, previous);
    previous = c.bandwidth_s;
    EXPECT_DOUBLE_EQ(c.startup_s, 2 * (p - 1) * m.link.alpha_s);
  }
  EXPECT_GT(previous, 0.99 * 2 * n * m.link.beta_s_per_byte);
}

TEST(ModelSelection, TinyMessagesFavourFewerStepsLargeOnesTheRing) {
  const ModelParams m{{5e-6, 1 / 12.5e9}, {1 / 20e9}, {0}, {0, 0, 0}, {0, 0}};
  EXPECT_NE(fastestAlgorithm(64, 1, DataType::Float32, m), "ring");
  EXPECT_EQ(fastestAlgorithm(63, 1 << 28, DataType::Float32, m), "ring");
}

// auto prices the closed forms by index; it must pick what pricing each named algorithm picks.
TEST(ModelSelection, AutoPicksTheFastestNamedAlgorithmAndPricesIt) {
  const ModelParams m = defaultProfile().params;
  schedule::AlgorithmSpec automatic;
  automatic.name = kAutoAlgorithm;
  for (int p : {2, 3, 8, 13, 64}) {
    for (std::uint64_t count : {1ull, 100ull, 10000ull, 1000000ull, 100000000ull}) {
      std::string best;
      double bestTime = 0;
      for (const std::string& name : candidateAlgorithms()) {
        schedule::AlgorithmSpec spec;
        spec.name = name;
        const double t = predictAllReduce(spec, p, count, DataType::Float32, m).total_s();
        if (best.empty() || t < bestTime) best = name, bestTime = t;
      }
      EXPECT_EQ(fastestAlgorithm(p, count, DataType::Float32, m), best) << p << " " << count;
      EXPECT_EQ(predictAllReduce(automatic, p, count, DataType::Float32, m).total_s(), bestTime);
    }
  }
}

TEST(ModelSelection, CrossoverIsTheFirstCountWhereTheFastestChanges) {
  const ModelParams m = defaultProfile().params;
  const std::uint64_t lo = 1, hi = 1ull << 28;
  const std::string below = fastestAlgorithm(64, lo, DataType::Float32, m);
  ASSERT_NE(below, fastestAlgorithm(64, hi, DataType::Float32, m));
  const std::uint64_t at = crossoverCount(64, lo, hi, DataType::Float32, m, below);
  EXPECT_EQ(fastestAlgorithm(64, at - 1, DataType::Float32, m), below);
  EXPECT_NE(fastestAlgorithm(64, at, DataType::Float32, m), below);
}

TEST(ModelFit, RecoversAnExactLineAndReportsResiduals) {
  const std::vector<double> x = {0, 1024, 65536, 1 << 20};
  std::vector<double> y;
  for (double v : x) y.push_back(2e-6 + v * 2e-10);
  const LineFit fit = fitLine(x, y);
  EXPECT_NEAR(fit.intercept, 2e-6, 1e-15);
  EXPECT_NEAR(fit.slope, 2e-10, 1e-20);
  EXPECT_NEAR(fit.r2, 1.0, 1e-12);
  ASSERT_EQ(fit.residuals.size(), 4u);
  y[1] += 1e-6;
  EXPECT_LT(fitLine(x, y).r2, 1.0);
  EXPECT_THROW(fitLine({1}, {1}), Error);
  EXPECT_THROW(fitLine({1, 1}, {1, 2}), Error);
}

// Per-byte times against working set, 64 KiB to 256 MiB: 200 GB/s in a core's own 1 MiB of cache,
// 30 GB/s in the shared cache up to 16 MiB, 10 GB/s from memory; a late wake-up makes 128 KiB
// slow. The knee is the last in-cache working set of the shared cache, half-way (log scale)
// between 30 and 10 GB/s, once the private cache's points are set aside.
TEST(ModelFit, MemoryKneeIsTheRunOfSlowWorkingSetsAtTheTop) {
  std::vector<double> sets, perByte;
  for (double b = 64 * 1024; b <= 256 << 20; b *= 2) {
    sets.push_back(b);
    perByte.push_back(1 / (b <= (1 << 20) ? 200e9 : b <= (16 << 20) ? 30e9 : 10e9));
  }
  perByte[1] *= 40;  // 128 KiB
  EXPECT_EQ(memoryKnee(sets, perByte, 1 << 20), 16 << 20);
  // The private cache's points taken as the fastest: the geometric mean of 200 and 10 GB/s is
  // below the shared cache's 30 GB/s, and the knee falls at the private cache.
  EXPECT_EQ(memoryKnee(sets, perByte, 0), 1 << 20);
  // Every working set at one speed, or within 1.5x: one regime.
  std::vector<double> flat(sets.size(), 1 / 30e9);
  EXPECT_EQ(memoryKnee(sets, flat, 1 << 20), 0);
  flat.back() = 1.4 / 30e9;
  EXPECT_EQ(memoryKnee(sets, flat, 1 << 20), 0);
  EXPECT_DOUBLE_EQ(medianWithin(sets, perByte, 16 << 20, 1e300, 0), 1 / 10e9);
  EXPECT_EQ(medianWithin(sets, perByte, 1e12, 1e300, 7.0), 7.0);
}

TEST(ModelProfile, RoundTripsAndRejectsBadFiles) {
  Profile p = defaultProfile();
  p.transport = "inproc";
  const Profile back = profileFromJson(toJson(p), "test");
  EXPECT_EQ(back.params.link.alpha_s, p.params.link.alpha_s);
  EXPECT_EQ(back.params.link.beta_s_per_byte, p.params.link.beta_s_per_byte);
  EXPECT_EQ(back.transport, "inproc");
  nlohmann::json j = toJson(p);
  j["format"] = "ringlab-profile/0";
  EXPECT_THROW(profileFromJson(j, "old.json"), Error);
  j = toJson(p);
  j.erase("beta_s_per_byte");
  try {
    profileFromJson(j, "cut.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("beta_s_per_byte"), std::string::npos) << e.what();
  }
  j = toJson(p);
  j["alpha_s"] = -1;
  EXPECT_THROW(profileFromJson(j, "neg.json"), Error);
  EXPECT_THROW(profileFromJson(nlohmann::json::array(), "array.json"), Error);
}

// The calibration's noise: 95% t-intervals of the fitted coefficients, with closed-form answers.
TEST(ModelFitInterval, AnExactLineHasAZeroWidthInterval) {
  const std::vector<double> x = {8, 32, 128, 512, 2048};
  std::vector<double> y;
  for (double v : x) y.push_back(3e-6 + v * 1e-10);
  for (const LineFit& fit : {fitLine(x, y), fitLineRelative(x, y)}) {
    EXPECT_NEAR(fit.interceptHalfWidth95, 0, 1e-18);
    EXPECT_NEAR(fit.slopeHalfWidth95, 0, 1e-22);
    EXPECT_TRUE(unstableReasons(fit, "ping-pong", "alpha", "beta").empty());
  }
}

TEST(ModelFitInterval, AKnownResidualGivesTheTextbookTInterval) {
  // (0,0), (1,2), (2,2): slope 1, intercept 1/3, residuals -1/3, 2/3, -1/3; SS_res = 2/3 with one
  // degree of freedom, so s = sqrt(2/3), Sxx = 2: se(slope) = s / sqrt(2) = sqrt(1/3) and
  // se(intercept) = s sqrt(1/3 + 1/2) = sqrt(5/9); each interval is t(0.975, 1) = 12.7062 times.
  const LineFit fit = fitLine({0, 1, 2}, {0, 2, 2});
  EXPECT_NEAR(fit.slope, 1, 1e-12);
  EXPECT_NEAR(fit.intercept, 1.0 / 3, 1e-12);
  EXPECT_NEAR(fit.slopeHalfWidth95, 12.7062047362 * std::sqrt(1.0 / 3), 1e-9);
  EXPECT_NEAR(fit.interceptHalfWidth95, 12.7062047362 * std::sqrt(5.0 / 9), 1e-9);
  // Four points, two degrees of freedom: residuals +-e alternate on x = 0..3 around y = x.
  const double e = 0.1;
  const LineFit four = fitLine({0, 1, 2, 3}, {e, 1 - e, 2 - e, 3 + e});
  // The residuals (+e, -e, -e, +e) are orthogonal to 1 and x, so the line is y = x and SS_res =
  // 4e^2: s^2 = 2e^2, Sxx = 5, se(slope) = sqrt(2e^2 / 5), se(intercept) = s sqrt(1/4 + 1.5^2/5).
  EXPECT_NEAR(four.slope, 1, 1e-12);
  EXPECT_NEAR(four.intercept, 0, 1e-12);
  EXPECT_NEAR(four.slopeHalfWidth95, 4.30265272975 * std::sqrt(2 * e * e / 5), 1e-9);
  EXPECT_NEAR(four.interceptHalfWidth95, 4.30265272975 * std::sqrt(2 * e * e * (0.25 + 2.25 / 5)),
              1e-9);
  // Two points leave no degree of freedom to estimate the noise: unbounded, and said so.
  const LineFit two = fitLine({1, 2}, {1, 3});
  EXPECT_TRUE(std::isinf(two.slopeHalfWidth95));
  EXPECT_FALSE(unstableReasons(two, "ping-pong", "alpha", "beta").empty());
}

TEST(ModelFitInterval, UnstableFitsNameTheCoefficientAndTheThreshold) {
  LineFit fit;
  fit.intercept = 10e-6;
  fit.interceptHalfWidth95 = 6e-6;  // 60% of the value: beyond 50%
  fit.slope = 1e-10;
  fit.slopeHalfWidth95 = 0.4e-10;  // 40%: within
  fit.r2 = 0.5;
  const std::vector<std::string> reasons = unstableReasons(fit, "ping-pong", "alpha", "beta");
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(reasons[0], "alpha: its 95% interval is +-60% of its value (limit 50%)");
  EXPECT_EQ(reasons[1], "ping-pong fit: R^2 = 0.500 (limit 0.9)");
  // A coefficient the caller does not use is not judged.
  EXPECT_EQ(unstableReasons(fit, "kernel", "", "gamma").size(), 1u);
}

TEST(ModelProfile, NoiseAndPlacementRoundTripAndOldProfilesReadAsNotRecorded) {
  Profile p = defaultProfile();
  p.transport = "shm";
  p.jobRanks = 4;
  p.placement = "one process per rank";
  p.rounds = 3;
  p.halfWidths95 = Profile::HalfWidths95{1e-6, 2e-11, 3e-12};
  p.unstable = {"alpha: its 95% interval is +-60% of its value (limit 50%)"};
  const Profile back = profileFromJson(toJson(p), "new.json");
  EXPECT_EQ(back.jobRanks, 4);
  EXPECT_EQ(back.placement, "one process per rank");
  EXPECT_EQ(back.rounds, 3);
  ASSERT_TRUE(back.halfWidths95.has_value());
  EXPECT_EQ(back.halfWidths95->beta_s_per_byte, 2e-11);
  EXPECT_EQ(back.unstable, p.unstable);
  p.params.reduce.gamma_out_of_place_s_per_byte = 1.25e-10;
  p.params.memory = {4 << 20, 2.8e-10, 1.9e-10, 3.3e-10};
  p.params.fusion.fused_reduce_from_bytes = 131072;
  EXPECT_EQ(profileFromJson(toJson(p), "new.json").params, p.params);
  // A profile from before these fields: read, with every one "not recorded" (the out-of-place
  // kernel: 0, priced as in place; fused receives: 0, never).
  nlohmann::json old = toJson(p);
  for (const char* key : {"job_ranks", "placement", "rounds", "half_width_95", "unstable",
                          "gamma_out_of_place_s_per_byte", "gamma_mem_out_of_place_s_per_byte",
                          "fused_reduce_from_bytes"})
    old.erase(key);
  const Profile o = profileFromJson(old, "old.json");
  EXPECT_EQ(o.jobRanks, 0);
  EXPECT_EQ(o.placement, "");
  EXPECT_EQ(o.rounds, 0);
  EXPECT_FALSE(o.halfWidths95.has_value());
  EXPECT_TRUE(o.unstable.empty());
  EXPECT_EQ(o.params.reduce.gamma_out_of_place_s_per_byte, 0);
  EXPECT_EQ(o.params.memory.gamma_mem_out_of_place_s_per_byte, 0);
  EXPECT_EQ(o.params.memory.gamma_mem_s_per_byte, 1.9e-10);
  EXPECT_EQ(o.params.fusion.fused_reduce_from_bytes, 0);  // never fused
  // The knee's cores and the host's, and the caches it reported, read back.
  p.params.memory.cache_cores = 2;
  p.params.host.cores = 2;
  p.hostCaches = {{1, 49152, 1}, {2, 1 << 20, 1}, {3, 32 << 20, 2}};
  const Profile withCaches = profileFromJson(toJson(p), "new.json");
  EXPECT_EQ(withCaches.params, p.params);
  EXPECT_EQ(withCaches.hostCaches, p.hostCaches);
  // A profile whose cache_bytes is a message size (from before cache_cores) is refused: read as
  // a working set it would price every job in the wrong regime.
  old = toJson(p);
  old.erase("cache_cores");
  try {
    profileFromJson(old, "old.json");
    ADD_FAILURE() << "a message-size knee was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("old.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("message size (cache_bytes)"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("ringlab calibrate"), std::string::npos) << e.what();
  }
  old["cache_bytes"] = 0;  // one regime: nothing to misread
  EXPECT_EQ(profileFromJson(old, "old.json").params.memory.cache_bytes, 0);
  nlohmann::json bad = toJson(p);
  bad["host_caches"][1]["bytes"] = -1;
  EXPECT_THROW(profileFromJson(bad, "bad.json"), Error);
  bad = toJson(p);
  bad["host_caches"] = 3;
  EXPECT_THROW(profileFromJson(bad, "bad.json"), Error);
  bad = toJson(p);
  bad["cache_cores"] = 0.5e7;
  EXPECT_THROW(profileFromJson(bad, "bad.json"), Error);
  bad = toJson(p);
  bad["fused_reduce_from_bytes"] = -1;
  EXPECT_THROW(profileFromJson(bad, "bad.json"), Error);
  bad = toJson(p);
  bad["gamma_out_of_place_s_per_byte"] = -1;
  EXPECT_THROW(profileFromJson(bad, "bad.json"), Error);
  bad = toJson(p);
  bad["unstable"] = "yes";
  EXPECT_THROW(profileFromJson(bad, "bad.json"), Error);
  bad = toJson(p);
  bad["half_width_95"].erase("gamma_s_per_byte");
  EXPECT_THROW(profileFromJson(bad, "bad.json"), Error);
}

// calibrate's working-set probes travel in the profile and read back exactly; a profile without
// them (older) reads with none, and the roofline measures instead; a bad entry is refused by name,
// on one line.
TEST(ModelProfile, WorkingSetRatesReadBackAndOlderProfilesHaveNone) {
  Profile p = defaultProfile();
  p.workingSetRates = {{64 << 10, 1e-10, 2e-10, 3e-11, 4e-11, 5e-11},
                       {256 << 20, 6e-10, 7e-10, 8e-11, 9e-11, 1e-10}};
  EXPECT_EQ(profileFromJson(toJson(p), "new.json").workingSetRates, p.workingSetRates);
  // The entry that prices a working set: the largest probed not above it, else the smallest.
  EXPECT_EQ(rateForWorkingSet(p.workingSetRates, 1000).bytes, 64u << 10);
  EXPECT_EQ(rateForWorkingSet(p.workingSetRates, (256 << 20) - 1).bytes, 64u << 10);
  EXPECT_EQ(rateForWorkingSet(p.workingSetRates, 256 << 20).bytes, 256u << 20);
  EXPECT_EQ(rateForWorkingSet(p.workingSetRates, 1e15).bytes, 256u << 20);
  nlohmann::json old = toJson(p);
  old.erase("working_set_rates");
  EXPECT_TRUE(profileFromJson(old, "old.json").workingSetRates.empty());
  const auto refused = [&](const std::function<void(nlohmann::json&)>& change,
                           const std::string& needle) {
    nlohmann::json bad = toJson(p);
    change(bad);
    try {
      profileFromJson(bad, "bad.json");
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << what;
      EXPECT_NE(what.find("bad.json"), std::string::npos) << what;
      EXPECT_NE(what.find(needle), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  };
  refused([](nlohmann::json& j) { j["working_set_rates"] = 3; },
          "\"working_set_rates\" must be a list");
  refused([](nlohmann::json& j) { j["working_set_rates"][1].erase("slot_reduce_s_per_byte"); },
          "need number field \"slot_reduce_s_per_byte\"");
  refused([](nlohmann::json& j) { j["working_set_rates"][0]["copy_s_per_byte"] = 0; },
          "working_set_rates.copy_s_per_byte = 0");
  refused([](nlohmann::json& j) { j["working_set_rates"][1]["bytes"] = 65536; },
          "growing working sets, smallest first");
  refused([](nlohmann::json& j) { j["working_set_rates"][0]["bytes"] = 0.5; },
          "working_set_rates.bytes = 0.5");
}

TEST(ModelProfile, AnotherTransportIsRefusedAnotherPOrHostIsSaid) {
  Profile p = defaultProfile();
  p.transport = "tcp";
  p.jobRanks = 2;
  p.host = "a";
  try {
    checkProfileUse(p, "t.json", {"shm", 2, "a", false});
    FAIL() << "a tcp profile for an shm run was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    // In the library's own words: no front end's flag.
    EXPECT_EQ(std::string(e.what()),
              "the profile t.json was calibrated over tcp, this run uses shm: calibrate one over "
              "shm, or allow measurements from any transport to use this profile anyway");
  }
  EXPECT_EQ(checkProfileUse(p, "t.json", {"tcp", 2, "a", false}), "");
  EXPECT_EQ(checkProfileUse(p, "t.json", {"shm", 4, "b", true}),
            "note: profile t.json was calibrated with another transport tcp (this run: shm), p 2 "
            "(this run: 4), host a (this run: b); its predictions describe that setup");
  p.jobRanks = 0;  // an old profile: p not recorded, not compared
  EXPECT_EQ(checkProfileUse(p, "t.json", {"tcp", 8, "a", false}), "");
}

TEST(ModelDecisionTable, TheProfilesRuleHoldsForTables) {
  DecisionTable t;
  t.transport = "tcp";
  t.ranks = 2;
  t.host = "a";
  // As the CLI names its flags (apps/ringlab/option_groups.cpp's setupUse).
  SetupLabels flags{.profile = "--profile",
                    .table = "--tuned",
                    .remake =
                        [](const std::string& command, const std::string& over) {
                          return "`ringlab " + command + " --transport " + over + "`";
                        },
                    .allowAnyTransport = "add --profile-any-transport"};
  try {
    checkDecisionTableUse(t, "t.json", {"shm", 2, "a", false, flags});
    FAIL() << "a tcp table for an shm run was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(std::string(e.what()),
              "--tuned t.json was measured over tcp, this run uses shm: tune one over shm "
              "(`ringlab tune --transport shm`), or add --profile-any-transport to use this "
              "decision table anyway");
  }
  EXPECT_EQ(checkDecisionTableUse(t, "t.json", {"tcp", 2, "a", false}), "");
  EXPECT_EQ(checkDecisionTableUse(t, "t.json", {"shm", 4, "b", true}),
            "note: decision table t.json was measured with another transport tcp (this run: "
            "shm), p 2 (this run: 4), host a (this run: b); its choices were the fastest there");
}

TEST(ModelUnits, DurationsAndBandwidths) {
  EXPECT_DOUBLE_EQ(parseSeconds("5us"), 5e-6);
  EXPECT_DOUBLE_EQ(parseSeconds("1.5ms"), 1.5e-3);
  EXPECT_DOUBLE_EQ(parseSeconds("80ns"), 80e-9);
  EXPECT_DOUBLE_EQ(parseSeconds("0"), 0);
  EXPECT_DOUBLE_EQ(parseBandwidth("12.5GB/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(parseBandwidth("100Gb/s"), 12.5e9);
  for (const char* bad : {"", "fast", "-5us", "5 parsecs", "nan", "inf"})
    EXPECT_THROW(parseSeconds(bad), Error) << bad;
  for (const char* bad : {"0GB/s", "-1GB/s", "12.5", "abc"})
    EXPECT_THROW(parseBandwidth(bad), Error) << bad;
}

}  // namespace
}  // namespace ringlab::model
