// The symbolic verifier (schedule/verify.hpp) on ring AllReduce schedules: 2(p-1) steps of p
// transfers over p x p contribution sets of p bits. buildSchedule runs it on every schedule, so
// this is also what building one costs at large p. The schedule is built before timing.
#include <benchmark/benchmark.h>

#include "ringlab/schedule/ring.hpp"
#include "ringlab/schedule/verify.hpp"

namespace {

void verifyRingAllReduce(benchmark::State& state) {
  const int p = static_cast<int>(state.range(0));
  const ringlab::schedule::Schedule s =
      ringlab::schedule::ringAllReduce(ringlab::schedule::RingOrder::identity(p));
  for (auto _ : state) {
    const ringlab::schedule::Verdict v = ringlab::schedule::verify(s);
    if (!v.valid) {
      state.SkipWithError(v.reason.c_str());
      break;
    }
    benchmark::DoNotOptimize(v.valid);
  }
  state.counters["steps"] = static_cast<double>(s.steps.size());
}

}  // namespace

BENCHMARK(verifyRingAllReduce)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
