#pragma once
// Sizes and times as users type and read them. Sizes accept 8, 4K, 64KiB, 1M, 2GiB, 1G, 16B
// (K/M/G/T are powers of 1024, as in nccl-tests; KB/KiB are the same).
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/core/error.hpp"

namespace ringlab {

// Throws InvalidArgument naming the value and the accepted forms; rejects overflow.
std::uint64_t parseSize(std::string_view text);

// 1024 -> "1 KiB", 1536 -> "1536 B": exact binary units only, otherwise bytes.
std::string formatSize(std::uint64_t bytes);

// Quantities as users type them. The unit is required, so that no value is read in a unit the
// user did not mean (`--alpha 5` is refused, not read as 5 s); exactly "0" is accepted bare (zero
// in every unit). Every unit ringlab prints is accepted back, with or without a blank before it
// ("3.250 us", "12.50 GB/s", "0.0800 ns/B"). Negative, NaN and infinite values are refused. Each
// throws InvalidArgument whose message starts with the text and shows the accepted forms, e.g.
// "5: a time needs a unit, e.g. 5us, 5ms, 5s".

// A time in seconds: ns, us (or µs), ms, s.
double parseSeconds(std::string_view text);

// A bandwidth or rate in bytes per second, > 0: B/s, KB/s, MB/s, GB/s, TB/s (powers of 1000, the
// convention of every bandwidth ringlab prints), KiB/s, MiB/s, GiB/s, TiB/s (powers of 1024), and
// bits: Kb/s, Mb/s, Gb/s, Tb/s, Mbit/s, Gbit/s, Gbps.
double parseBandwidth(std::string_view text);

// A cost per byte in seconds per byte: ps/B, ns/B, us/B (or µs/B), ms/B, s/B; or a rate as
// parseBandwidth reads it, whose inverse is the cost (20GB/s is 0.05ns/B).
double parseSecondsPerByte(std::string_view text);

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

// The factor of a geometric sweep as a front end or configuration holds it (a signed one, so that
// a negative factor is reported, not wrapped). Throws InvalidArgument "<what> <factor>: must be
// >= 2" below 2; the one check of the factor, wherever a sweep is asked for.
template <std::integral Factor>
std::uint64_t checkedStepFactor(Factor factor, std::string_view what) {
  if (factor < 2) throwInvalid(std::string(what) + " " + std::to_string(factor) + ": must be >= 2");
  return static_cast<std::uint64_t>(factor);
}

// a * b, or InvalidArgument naming `what` when the product does not fit in 64 bits.
std::uint64_t checkedMultiply(std::uint64_t a, std::uint64_t b, std::string_view what);

}  // namespace ringlab
