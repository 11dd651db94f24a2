#pragma once
// float16 (IEEE binary16) and bfloat16 storage types and their conversions to and from float.
// The conversions are branch-free so that loops over them vectorise; float->half and
// float->bfloat16 round to nearest, ties to even, and keep NaN a (quiet) NaN.
#include <cstdint>
#include <cstring>

namespace ringlab {

struct Float16 {
  std::uint16_t bits;
};
struct Bfloat16 {
  std::uint16_t bits;
};

inline std::uint32_t floatBits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
inline float bitsFloat(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// c ? a : b without a branch, so that the vectoriser keeps loops over these conversions.
inline std::uint32_t selectBits(bool c, std::uint32_t a, std::uint32_t b) {
  const std::uint32_t mask = 0u - static_cast<std::uint32_t>(c);
  return (a & mask) | (b & ~mask);
}

inline float halfToFloat(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t shifted = static_cast<std::uint32_t>(h & 0x7fffu) << 13;
  const std::uint32_t exponent = shifted & 0x0f800000u;
  const std::uint32_t rebiased = shifted + ((127u - 15u) << 23);
  // Inf/NaN: push the exponent to all ones; a NaN comes out quiet, as F16C's conversion does.
  const std::uint32_t infNan =
      (rebiased + ((128u - 16u) << 23)) | selectBits((h & 0x3ffu) != 0, 0x00400000u, 0);
  // Subnormal: let the FPU normalise it, (m * 2^-24) computed as (magic + m) - magic.
  const float subnormal = bitsFloat(rebiased + (1u << 23)) - bitsFloat(113u << 23);
  const std::uint32_t magnitude = selectBits(
      exponent == 0x0f800000u, infNan, selectBits(exponent == 0, floatBits(subnormal), rebiased));
  return bitsFloat(magnitude | sign);
}

inline std::uint16_t floatToHalf(float x) {
  std::uint32_t f = floatBits(x);
  const std::uint32_t sign = (f >> 16) & 0x8000u;
  f &= 0x7fffffffu;
  // |x| >= 65536 (or Inf/NaN): Inf, or a quiet NaN keeping the top payload bits (as F16C does).
  const std::uint32_t overflow =
      selectBits(f > 0x7f800000u, 0x7e00u | ((f >> 13) & 0x3ffu), 0x7c00u);
  // |x| < 2^-14: the half is subnormal; adding 0.5f makes the FPU round at the half's ulp (2^-24).
  const std::uint32_t subnormal = floatBits(bitsFloat(f) + 0.5f) - 0x3f000000u;
  // Normal range: rebias and round to nearest even by adding 0xfff plus the kept lowest bit.
  const std::uint32_t oddBit = (f >> 13) & 1u;
  const std::uint32_t normal = (f - ((127u - 15u) << 23) + 0xfffu + oddBit) >> 13;
  const std::uint32_t magnitude =
      selectBits(f >= 0x47800000u, overflow, selectBits(f < 0x38800000u, subnormal, normal));
  return static_cast<std::uint16_t>(magnitude | sign);
}

inline float bfloat16ToFloat(std::uint16_t b) {
  return bitsFloat(static_cast<std::uint32_t>(b) << 16);
}

inline std::uint16_t floatToBfloat16(float x) {
  const std::uint32_t f = floatBits(x);
  const std::uint32_t rounded = (f + 0x7fffu + ((f >> 16) & 1u)) >> 16;
  const bool isNan = (f & 0x7fffffffu) > 0x7f800000u;
  return static_cast<std::uint16_t>(selectBits(isNan, (f >> 16) | 0x40u, rounded));
}

}  // namespace ringlab
