#pragma once
// Sizes and times as users type and read them. Sizes accept 8, 4K, 64KiB, 1M, 2GiB, 1G, 16B
// (K/M/G/T are powers of 1024, as in nccl-tests; KB/KiB are the same).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab {

// Throws InvalidArgument naming the value and the accepted forms; rejects overflow.
std::uint64_t parseSize(std::string_view text);

// 1024 -> "1 KiB", 1536 -> "1536 B": exact binary units only, otherwise bytes.
std::string formatSize(std::uint64_t bytes);

// Durations: "5us", "1.5ms", "2e-6s", "80ns", "0" (a bare number is seconds). Throws
// InvalidArgument naming the value; negative, NaN and infinite values are refused.
double parseSeconds(std::string_view text);

// Bandwidth as bytes per second: "12.5GB/s", "900MB/s", "100Gb/s" or "100Gbit/s" (bits),
// decimal prefixes (GB/s = 1e9 B/s, the convention of every bandwidth ringlab prints). Must be
// > 0 and finite.
double parseBandwidth(std::string_view text);

// Microseconds with a sensible number of digits: "3.25 us", "1250 us".
std::string formatMicros(double seconds);

// first, first*factor, first*factor^2, ... up to last (factor >= 2), without overflowing.
std::vector<std::uint64_t> geometricSizes(std::uint64_t first, std::uint64_t last,
                                          std::uint64_t factor);

// A size sweep as nccl-tests walks one: first, first+step, first+2 step, ... when step > 0 (its
// -i), else geometricSizes (its -f); up to last. A linear sweep holds at most kMaxLinearSizes
// sizes (InvalidArgument beyond).
inline constexpr std::uint64_t kMaxLinearSizes = 10000;
std::vector<std::uint64_t> sizeSweep(std::uint64_t first, std::uint64_t last, std::uint64_t factor,
                                     std::uint64_t step);

// a * b, or InvalidArgument naming `what` when the product does not fit in 64 bits.
std::uint64_t checkedMultiply(std::uint64_t a, std::uint64_t b, std::string_view what);

}  // namespace ringlab
