#include "ringlab/core/reduce.hpp"

#include "ringlab/core/streaming_stores.hpp"

#include <cstdint>

namespace ringlab {

#define RINGLAB_DECLARE_KERNELS(NS)                                                     \
  namespace NS {                                                                        \
  void reduce(const Reduction&, void*, const void*, const void*, std::size_t);          \
  void reduceStreaming(const Reduction&, void*, const void*, const void*, std::size_t); \
  void divideBy(DataType, void*, std::size_t, std::uint64_t);                           \
  void multiplyBy(DataType, void*, std::size_t, double);                                \
  void copyBytes(void*, const void*, std::size_t);                                      \
  }
RINGLAB_DECLARE_KERNELS(generic)
RINGLAB_DECLARE_KERNELS(avx2)
#undef RINGLAB_DECLARE_KERNELS

namespace {
// Decided once per process: the CPU does not change under us.
const bool kHasAvx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
}  // namespace

void reduce(const Reduction& how, void* out, const void* a, const void* b, std::size_t count) {
  if (count == 0) return;
  if (kHasAvx2) return avx2::reduce(how, out, a, b, count);
  generic::reduce(how, out, a, b, count);
}

void reduceStreaming(const Reduction& how, void* out, const void* a, const void* b,
                     std::size_t count) {
  if (kHasAvx2) {
    avx2::reduceStreaming(how, out, a, b, count);
  } else {
    generic::reduceStreaming(how, out, a, b, count);
  }
  storeFence();  // streaming_stores.hpp: the bytes are ordered before any later store
}

void divideBy(DataType type, void* data, std::size_t count, std::uint64_t divisor) {
  if (count == 0 || divisor == 1) return;
  if (kHasAvx2) return avx2::divideBy(type, data, count, divisor);
  generic::divideBy(type, data, count, divisor);
}

void multiplyBy(DataType type, void* data, std::size_t count, double factor) {
  if (count == 0) return;
  if (kHasAvx2) return avx2::multiplyBy(type, data, count, factor);
  generic::multiplyBy(type, data, count, factor);
}

void copyBytes(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  if (kHasAvx2) return avx2::copyBytes(dst, src, bytes);
  generic::copyBytes(dst, src, bytes);
}

const char* reduceKernelIsa() {
  return kHasAvx2 ? "avx2" : "generic";
}

}  // namespace ringlab
