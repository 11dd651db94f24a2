#pragma once
// Sizes and times as users type and read them. Sizes accept 8, 4K, 64KiB, 1M, 2GiB, 1G, 16B
// (K/M/G/T are powers of 1024, as in nccl-tests; KB/KiB are the same).
#include <cstdint>
#include <string>
#include <string_view>

namespace ringlab {

// Throws InvalidArgument naming the value and the accepted forms; rejects overflow.
std::uint64_t parseSize(std::string_view text);

// 1024 -> "1 KiB", 1536 -> "1536 B": exact binary units only, otherwise bytes.
std::string formatSize(std::uint64_t bytes);

// a * b, or InvalidArgument naming `what` when the product does not fit in 64 bits.
std::uint64_t checkedMultiply(std::uint64_t a, std::uint64_t b, std::string_view what);

}  // namespace ringlab
