#include "ringlab/core/streaming_stores.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ringlab/core/reduce.hpp"

namespace ringlab {
namespace {

// Streams without the closing fence; the public functions fence once per call.
void streamBytes(std::byte* dst, const std::byte* src, std::size_t bytes) {
#if defined(__SSE2__)
  // Streaming stores need 16-byte aligned destinations: plain ones up to the first boundary.
  const std::size_t head = std::min(bytes, (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  std::size_t i = head;
  for (; i + 64 <= bytes; i += 64) {
    const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    const __m128i v2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    const __m128i v3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), v0);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), v1);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), v2);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), v3);
  }
  std::memcpy(dst + i, src + i, bytes - i);
#else
  std::memcpy(dst, src, bytes);
#endif
}

void storeFence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace

void copyBytesStreaming(void* dst, const void* src, std::size_t bytes) {
  streamBytes(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), bytes);
  storeFence();
}

void reduceStreaming(DataType type, ReduceOp op, void* out, const void* a, const void* b,
                     std::size_t count) {
  // The plain kernel reduces a block into a buffer that stays in L1, which is then streamed out:
  // one reduction per type and op to keep, and the same bits by construction.
  alignas(64) std::byte block[4096];
  const std::size_t esize = dataTypeSize(type);
  const std::size_t perBlock = sizeof block / esize;
  auto* o = static_cast<std::byte*>(out);
  const auto* x = static_cast<const std::byte*>(a);
  const auto* y = static_cast<const std::byte*>(b);
  for (std::size_t done = 0; done < count; done += perBlock) {
    const std::size_t n = std::min(perBlock, count - done);
    reduce(type, op, block, x + done * esize, y + done * esize, n);
    streamBytes(o + done * esize, block, n * esize);
  }
  storeFence();
}

}  // namespace ringlab
