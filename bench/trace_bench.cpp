// Reading a torch.profiler trace into a gradient timeline, at 10k to 80k AccumulateGrad events:
// the work must grow with the events, not with their square. Two shapes stress the two ways a
// reader can go quadratic: many parameters in few iterations (matching each gradient to its
// parameter) and few parameters over many iterations (finding each iteration's start). Run with
// --benchmark_repetitions=3 --benchmark_report_aggregates_only=true for medians of 3.
#include <benchmark/benchmark.h>

#include "ringlab/plan/chrome_trace.hpp"

namespace {

using namespace ringlab;

// `iterations` backward passes of `params` parameters of distinct sizes (parameter q has q + 1
// elements), each gradient preceded by its evaluate_function event, as torch.profiler writes them.
struct SyntheticTrace {
  nlohmann::json trace;
  std::vector<plan::ParameterInfo> params;
};

SyntheticTrace syntheticTrace(std::size_t params, std::size_t iterations) {
  SyntheticTrace s;
  for (std::size_t q = 0; q < params; ++q) {
    std::string name = "p";  // appended, not operator+: GCC 12 warns falsely (-Wrestrict) there
    name += std::to_string(q);
    s.params.push_back({name, q + 1, DataType::Float32});
  }
  nlohmann::json events = nlohmann::json::array();
  double now = 0;
  for (std::size_t g = 0; g < iterations; ++g) {
    now += 1000;  // the forward pass between iterations
    for (std::size_t k = 0; k < params; ++k) {
      const std::size_t q = params - 1 - k;  // the last layer's gradients are ready first
      events.push_back({{"ph", "X"},
                        {"name", "autograd::engine::evaluate_function: AddmmBackward0"},
                        {"pid", 1},
                        {"tid", 1},
                        {"ts", now},
                        {"dur", 4}});
      events.push_back({{"ph", "X"},
                        {"name", "torch::autograd::AccumulateGrad"},
                        {"pid", 1},
                        {"tid", 1},
                        {"ts", now + 5},
                        {"dur", 2},
                        {"args", {{"Input Dims", {{q + 1}}}}}});
      now += 10;
    }
  }
  s.trace = {{"traceEvents", std::move(events)}};
  return s;
}

void read(benchmark::State& state, std::size_t params) {
  const auto events = static_cast<std::size_t>(state.range(0));
  const SyntheticTrace s = syntheticTrace(params, events / params);
  for (auto _ : state)
    benchmark::DoNotOptimize(plan::timelineFromChromeTrace(s.trace, s.params, "synthetic"));
  state.counters["events"] = static_cast<double>(events);
}

// Half the events' parameters: two iterations.
void BM_TraceManyParameters(benchmark::State& state) {
  read(state, static_cast<std::size_t>(state.range(0)) / 2);
}
// Eight parameters: events / 8 iterations.
void BM_TraceManyIterations(benchmark::State& state) {
  read(state, 8);
}

BENCHMARK(BM_TraceManyParameters)
    ->Arg(10000)
    ->Arg(20000)
    ->Arg(40000)
    ->Arg(80000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TraceManyIterations)
    ->Arg(10000)
    ->Arg(20000)
    ->Arg(40000)
    ->Arg(80000)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
