// The bucket planner at scale: the optimal dynamic programme (and the DDP cap search) on 10,000
// tensors. The target is under 1 s per plan. Three regimes: compute-bound (communication
// keeps up with the backward), balanced, and communication-bound (a backlog after the backward,
// where every boundary in the backlog is a candidate).
#include <benchmark/benchmark.h>

#include <random>

#include "ringlab/plan/baselines.hpp"
#include "ringlab/plan/optimal.hpp"

namespace {

using namespace ringlab;

plan::Timeline syntheticTimeline(std::size_t n) {
  std::mt19937 rng(10000);
  std::lognormal_distribution<double> elements(9.0, 2.0);  // median ~8k elements, long tail
  plan::Timeline t;
  t.source = "synthetic";
  double now = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto count = static_cast<std::uint64_t>(std::min(5e7, std::max(1.0, elements(rng))));
    now += 2e-6 + count * 4e-11 * 50;  // backward time roughly proportional to the parameter's size
    std::string name = "g";  // appended, not operator+: GCC 12 warns falsely (-Wrestrict) there
    name += std::to_string(i);
    t.tensors.push_back({name, count, DataType::Float32, now, std::nullopt});
  }
  t.backwardEnd_s = now + 1e-4;
  return t;
}

model::ModelParams link(double alpha, double gbps) {
  model::ModelParams m;
  m.link.alpha_s = alpha;
  m.link.beta_s_per_byte = 1 / (gbps * 1e9);
  m.reduce.gamma_s_per_byte = 1 / 20e9;
  return m;
}

void optimal(benchmark::State& state, double gbps, int ranks = 8) {
  const plan::Timeline t = syntheticTimeline(static_cast<std::size_t>(state.range(0)));
  const plan::BucketCost cost(ranks, DataType::Float32, link(10e-6, gbps));
  std::size_t examined = 0, buckets = 0;
  for (auto _ : state) {
    const plan::OptimalPlan p = plan::optimalBuckets(t, cost);
    examined = p.candidatesExamined;
    buckets = p.starts.size();
    benchmark::DoNotOptimize(p.lastDone_s);
  }
  state.counters["candidates_examined"] = static_cast<double>(examined);
  state.counters["buckets"] = static_cast<double>(buckets);
}

void BM_OptimalComputeBound(benchmark::State& state) {
  optimal(state, 25);
}
void BM_OptimalBalanced(benchmark::State& state) {
  optimal(state, 3);
}
void BM_OptimalCommunicationBound(benchmark::State& state) {
  optimal(state, 0.5);
}

// The search's work grows with the cost's periods (the ring's is p): 1,024 ranks.
void BM_OptimalBalanced1024Ranks(benchmark::State& state) {
  optimal(state, 3, 1024);
}

void BM_BestDdpCap(benchmark::State& state) {
  const plan::Timeline t = syntheticTimeline(static_cast<std::size_t>(state.range(0)));
  const plan::BucketCost cost(8, DataType::Float32, link(10e-6, 25));
  for (auto _ : state) benchmark::DoNotOptimize(plan::bestDdpCap(t, cost).lastDone_s);
}

BENCHMARK(BM_OptimalComputeBound)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OptimalBalanced)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OptimalCommunicationBound)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OptimalBalanced1024Ranks)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BestDdpCap)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
