// Reduction kernels against memcpy of the same size, in one binary. Rate = output bytes per
// second for both (a reduce reads two buffers and writes one; memcpy reads one and writes one).
// Buffers are allocated and touched before timing.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "ringlab/core/reduce.hpp"

namespace {

void memcpyBaseline(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

// The data path's copy (core/reduce.hpp), which avoids memcpy's `rep movsb`.
void copyKernel(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  for (auto _ : state) {
    ringlab::copyBytes(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

template <ringlab::DataType Type, ringlab::ReduceOp Op>
void reduceKernel(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  const std::size_t count = bytes / ringlab::dataTypeSize(Type);
  // In place (out == a), as the executor reduces a received segment into the buffer.
  std::vector<char> a(bytes, 0), b(bytes, 0);
  for (auto _ : state) {
    ringlab::reduce({Type, Op}, a.data(), a.data(), b.data(), count);
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
  state.SetLabel(ringlab::reduceKernelIsa());
}

constexpr int64_t kSmall = 256 << 10;  // fits in L2: the executor's segment size
constexpr int64_t kLarge = 64 << 20;   // the bench sweep's largest size: memory bound

using ringlab::DataType;
using ringlab::ReduceOp;

// memcpy and float32 sum interleave at each size so that a slowed core hits both alike.
BENCHMARK(memcpyBaseline)->Arg(kSmall)->Arg(kLarge);
BENCHMARK(copyKernel)->Arg(kSmall)->Arg(kLarge);
BENCHMARK(reduceKernel<DataType::Float32, ReduceOp::Sum>)->Arg(kSmall)->Arg(kLarge);
BENCHMARK(reduceKernel<DataType::Float64, ReduceOp::Sum>)->Arg(kSmall)->Arg(kLarge);
BENCHMARK(reduceKernel<DataType::Int32, ReduceOp::Sum>)->Arg(kSmall)->Arg(kLarge);
BENCHMARK(reduceKernel<DataType::Float32, ReduceOp::Max>)->Arg(kSmall)->Arg(kLarge);
BENCHMARK(reduceKernel<DataType::Float16, ReduceOp::Sum>)->Arg(kSmall)->Arg(kLarge);
BENCHMARK(reduceKernel<DataType::Bfloat16, ReduceOp::Sum>)->Arg(kSmall)->Arg(kLarge);
BENCHMARK(reduceKernel<DataType::Int8, ReduceOp::Prod>)->Arg(kSmall)->Arg(kLarge);

}  // namespace

BENCHMARK_MAIN();
