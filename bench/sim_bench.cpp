// Simulator scale: ring AllReduce of 64 MiB (float32) on a rail-optimised two-level fat tree,
// 8 ranks and 8 rails per node, 16 nodes per leaf group, block placement, rank order. The time
// covers generating the topology, placing and routing, and simulating; the targets are
// p = 4096 in under 10 s and p = 65536 in under 60 s on one core.
//
//   build/bench/sim_bench --benchmark_filter=SimRing
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "ringlab/schedule/ring_order.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/sim/workload.hpp"
#include "ringlab/topo/generators.hpp"
#include "ringlab/topo/placement.hpp"

namespace {

void SimRing(benchmark::State& state, const char* placementKind) {
  const int p = static_cast<int>(state.range(0));
  const std::uint64_t count = (std::uint64_t{64} << 20) / 4;
  double simulated = 0;
  std::uint64_t steps = 0;
  for (auto _ : state) {
    const ringlab::topo::Topology t = ringlab::topo::generateTopology(
        "shape=fat-tree,nodes=" + std::to_string(p / 8) +
        ",ranks=8,rails=8,leaf=16,spines=8,intra=300GB/s,inter=50GB/s");
    const ringlab::topo::Placement placement = ringlab::topo::Placement::parse(t, placementKind, p);
    const ringlab::sim::Workload w = ringlab::sim::ringAllReduceWorkload(
        {ringlab::schedule::RingOrder::identity(p)}, count, ringlab::DataType::Float32);
    const ringlab::sim::SimResult r = ringlab::sim::simulate(t, placement, w, {1e-11});
    simulated = r.time_s;
    steps = r.simulatedSteps;
  }
  // A label rather than counters: the figures are results of one run, not rates.
  char label[96];
  std::snprintf(label, sizeof label, "simulated %.1f us, %llu of %d steps simulated",
                simulated * 1e6, static_cast<unsigned long long>(steps), 2 * (p - 1));
  state.SetLabel(label);
}

BENCHMARK_CAPTURE(SimRing, block, "block")
    ->RangeMultiplier(4)
    ->Range(64, 65536)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(SimRing, round_robin, "round-robin")
    ->RangeMultiplier(4)
    ->Range(64, 65536)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
