#include "ringlab/core/streaming_stores.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ringlab {

void storeFence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

void copyBytesStreaming(void* to, const void* from, std::size_t bytes) {
  auto* dst = static_cast<std::byte*>(to);
  const auto* src = static_cast<const std::byte*>(from);
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
  storeFence();
}

}  // namespace ringlab
