// Unit tests for the core layer: 16-bit float conversions, reduction kernels, partitioning,
// sizes, datatype and op names, and the check data. Every expected value is either closed-form
// or computed by an independent reference written here (or by the compiler's _Float16), never by
// the code under test itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "expect_error.hpp"
#include "ringlab/core/check_data.hpp"
#include "ringlab/core/dtype.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/half.hpp"
#include "ringlab/core/partition.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/core/reduce_op.hpp"
#include "ringlab/core/streaming_stores.hpp"
#include "ringlab/core/units.hpp"

// The two kernel builds behind ringlab::reduce (src/core/reduce_kernels_*.cpp). The public entry
// point only ever runs one of them on a given CPU, so the tests call both directly to cover the
// generic build on AVX2 machines too. Internal symbols: if they are renamed, update these.
namespace ringlab::generic {
void reduce(const Reduction&, void*, const void*, const void*, std::size_t);
void divideBy(DataType, void*, std::size_t, std::uint64_t);
}  // namespace ringlab::generic
namespace ringlab::avx2 {
void reduce(const Reduction&, void*, const void*, const void*, std::size_t);
void divideBy(DataType, void*, std::size_t, std::uint64_t);
}  // namespace ringlab::avx2

namespace {

using ringlab::DataType;
using ringlab::ReduceOp;

#if defined(__FLT16_MANT_DIG__)
#define CORE_TEST_HAVE_FLOAT16 1
// Independent reference: the compiler's IEEE binary16 type (libgcc's correctly rounded
// conversions on x86-64 without AVX512-FP16).
std::uint16_t refFloatToHalf(float x) {
  const _Float16 h = static_cast<_Float16>(x);
  std::uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}
float refHalfToFloat(std::uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, sizeof h);
  return static_cast<float>(h);
}
#else
#define CORE_TEST_HAVE_FLOAT16 0
#endif

// ---------------------------------------------------------------------------------------------
// Small helpers.

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Collects failures of a large sweep; reports how many and the first few.
struct Mismatches {
  std::uint64_t count = 0;
  std::string first;
  void add(const std::string& what) {
    if (count++ < 10) first += "  " + what + "\n";
  }
};

std::uint32_t bitsOf(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
float floatFromBits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
double doubleFromBits(std::uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

bool halfIsNan(std::uint16_t h) {
  return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0;
}
bool bf16IsNan(std::uint16_t b) {
  return (b & 0x7f80u) == 0x7f80u && (b & 0x007fu) != 0;
}

// Closed-form value of a binary16 bit pattern.
double halfValue(std::uint16_t h) {
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  const double sign = (h & 0x8000u) ? -1.0 : 1.0;
  if (e == 0) return sign * std::ldexp(static_cast<double>(m), -24);
  if (e == 31) {
    return m != 0 ? std::numeric_limits<double>::quiet_NaN()
                  : sign * std::numeric_limits<double>::infinity();
  }
  return sign * std::ldexp(static_cast<double>(1024 + m), e - 25);
}

// Straightforward round-to-nearest-even of a float to bfloat16 (the top 16 bits); NaN -> NaN
// (returns 0xffff as a marker that only NaN-ness is checked).
std::uint16_t refFloatToBfloat16(float x) {
  const std::uint32_t f = bitsOf(x);
  if ((f & 0x7fffffffu) > 0x7f800000u) return 0xffffu;
  std::uint32_t upper = f >> 16;
  const std::uint32_t lower = f & 0xffffu;
  if (lower > 0x8000u) {
    upper += 1;
  } else if (lower == 0x8000u) {
    if (upper & 1u) upper += 1;  // tie: to even
  }
  return static_cast<std::uint16_t>(upper);
}

using ringlab::test::expectInvalid;

// ---------------------------------------------------------------------------------------------
// half.hpp: float16

TEST(CoreHalf, HalfToFloatMatchesClosedFormForAllPatterns) {
  Mismatches mm;
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float got = ringlab::halfToFloat(bits);
    const double want = halfValue(bits);
    if (std::isnan(want)) {
      if (!std::isnan(got)) mm.add("half " + hex(h) + " is NaN, got " + std::to_string(got));
    } else if (bitsOf(got) != bitsOf(static_cast<float>(want))) {
      mm.add("half " + hex(h) + ": got " + hex(bitsOf(got)) + " want " +
             hex(bitsOf(static_cast<float>(want))));
    }
  }
  EXPECT_EQ(mm.count, 0u) << mm.first;
}

#if CORE_TEST_HAVE_FLOAT16
TEST(CoreHalf, HalfToFloatMatchesFloat16TypeForAllPatterns) {
  Mismatches mm;
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float got = ringlab::halfToFloat(bits);
    const float want = refHalfToFloat(bits);
    if (std::isnan(want) ? !std::isnan(got) : bitsOf(got) != bitsOf(want)) {
      mm.add("half " + hex(h) + ": got " + hex(bitsOf(got)) + " want " + hex(bitsOf(want)));
    }
  }
  EXPECT_EQ(mm.count, 0u) << mm.first;
}
#endif

TEST(CoreHalf, RoundTripEveryPattern) {
  Mismatches mm;
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const std::uint16_t back = ringlab::floatToHalf(ringlab::halfToFloat(bits));
    if (halfIsNan(bits)) {
      if (!halfIsNan(back)) mm.add("NaN " + hex(h) + " came back as " + hex(back));
    } else if (back != bits) {
      mm.add(hex(h) + " came back as " + hex(back));
    }
  }
  EXPECT_EQ(mm.count, 0u) << mm.first;
}

TEST(CoreHalf, FloatToHalfBoundaryCases) {
  const float inf = std::numeric_limits<float>::infinity();
  const struct {
    float x;
    std::uint16_t want;
    const char* what;
  } kCases[] = {
      {0.0f, 0x0000, "+0"},
      {-0.0f, 0x8000, "-0"},
      {1.0f, 0x3c00, "1"},
      {-2.0f, 0xc000, "-2"},
      {0.5f, 0x3800, "0.5"},
      {65504.0f, 0x7bff, "max half"},
      {-65504.0f, 0xfbff, "-max half"},
      {std::nextafter(65520.0f, 0.0f), 0x7bff, "just below 65520 rounds down to 65504"},
      {65519.99f, 0x7bff, "65519.99"},
      {65520.0f, 0x7c00, "65520: tie between 65504 (odd) and 2^16 -> inf"},
      {-65520.0f, 0xfc00, "-65520 -> -inf"},
      {65536.0f, 0x7c00, "2^16 -> inf"},
      {1e10f, 0x7c00, "1e10 -> inf"},
      {std::numeric_limits<float>::max(), 0x7c00, "FLT_MAX -> inf"},
      {-std::numeric_limits<float>::max(), 0xfc00, "-FLT_MAX -> -inf"},
      {inf, 0x7c00, "+inf"},
      {-inf, 0xfc00, "-inf"},
      {std::ldexp(1.0f, -14), 0x0400, "2^-14: smallest normal"},
      {std::nextafter(std::ldexp(1.0f, -14), 0.0f), 0x0400, "just below 2^-14 rounds up"},
      {std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25), 0x0400,
       "midpoint of largest subnormal (odd) and 2^-14 -> 2^-14"},
      {std::ldexp(1.0f, -14) - std::ldexp(1.0f, -24), 0x03ff, "largest subnormal"},
      {std::ldexp(1.0f, -24), 0x0001, "2^-24: smallest subnormal"},
      {-std::ldexp(1.0f, -24), 0x8001, "-2^-24"},
      {std::ldexp(1.0f, -25), 0x0000, "2^-25: tie -> even 0"},
      {-std::ldexp(1.0f, -25), 0x8000, "-2^-25: tie -> -0"},
      {std::nextafter(std::ldexp(1.0f, -25), 1.0f), 0x0001, "just above 2^-25 -> 2^-24"},
      {std::nextafter(std::ldexp(1.0f, -25), 0.0f), 0x0000, "just below 2^-25 -> 0"},
      {1.5f * std::ldexp(1.0f, -24), 0x0002, "1.5*2^-24: tie -> 2^-23"},
      {2.5f * std::ldexp(1.0f, -24), 0x0002, "2.5*2^-24: tie -> 2*2^-24"},
      {3.5f * std::ldexp(1.0f, -24), 0x0004, "3.5*2^-24: tie -> 4*2^-24"},
      {std::ldexp(1.0f, -30), 0x0000, "2^-30 -> 0"},
      {std::numeric_limits<float>::denorm_min(), 0x0000, "float subnormal -> 0"},
      {-std::numeric_limits<float>::denorm_min(), 0x8000, "-float subnormal -> -0"},
      {1.0f + std::ldexp(1.0f, -11), 0x3c00, "1+2^-11: tie -> 1"},
      {1.0f + 3.0f * std::ldexp(1.0f, -11), 0x3c02, "1+3*2^-11: tie -> 1+2^-9"},
      {std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f), 0x3c01, "just above 1+2^-11"},
      {1.0f + std::ldexp(1.0f, -10), 0x3c01, "1+2^-10"},
      {-(1.0f + 3.0f * std::ldexp(1.0f, -11)), 0xbc02, "-(1+3*2^-11)"},
      {2049.0f, 0x6800, "2049: tie -> 2048"},
      {2051.0f, 0x6802, "2051: tie -> 2052"},
      {0.1f, 0x2e66, "0.1"},
      {3.14159265f, 0x4248, "pi"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(ringlab::floatToHalf(c.x), c.want) << c.what << " (x = " << hex(bitsOf(c.x)) << ")";
#if CORE_TEST_HAVE_FLOAT16
    // The table itself is cross-checked against the compiler's _Float16.
    EXPECT_EQ(refFloatToHalf(c.x), c.want) << "reference disagrees with table: " << c.what;
#endif
  }
  // NaNs (quiet, signalling, negative, minimal payload) stay NaN, never turn into Inf.
  for (std::uint32_t nanBits : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7f802000u,
                                0x7fffffffu, 0x7fa00000u}) {
    const std::uint16_t h = ringlab::floatToHalf(floatFromBits(nanBits));
    EXPECT_TRUE(halfIsNan(h)) << "float NaN " << hex(nanBits) << " -> half " << hex(h);
  }
}

// For every pair of adjacent halves: the half itself, the midpoint (ties to even) and the floats
// just either side of the midpoint. Expected values are closed-form.
TEST(CoreHalf, FloatToHalfAllMidpoints) {
  Mismatches mm;
  for (std::uint32_t h = 0; h <= 0x7bffu; ++h) {
    const double lo = halfValue(static_cast<std::uint16_t>(h));
    const double hi = h == 0x7bffu ? 65536.0 : halfValue(static_cast<std::uint16_t>(h + 1));
    const float mid = static_cast<float>((lo + hi) / 2);  // exact: needs 12 significant bits
    ASSERT_EQ(static_cast<double>(mid), (lo + hi) / 2);
    const auto down = static_cast<std::uint16_t>(h);
    const auto up = static_cast<std::uint16_t>(h + 1);  // 0x7c00 = inf past the largest half
    const auto tie = (h & 1u) ? up : down;
    const struct {
      float x;
      std::uint16_t want;
    } probes[] = {{static_cast<float>(lo), down},
                  {mid, tie},
                  {std::nextafter(mid, 0.0f), down},
                  {std::nextafter(mid, 1e30f), up}};
    for (const auto& p : probes) {
      for (int s = 0; s < 2; ++s) {
        const float x = s ? -p.x : p.x;
        const auto want = static_cast<std::uint16_t>(s ? (p.want | 0x8000u) : p.want);
        const std::uint16_t got = ringlab::floatToHalf(x);
        if (got != want) {
          mm.add("x=" + hex(bitsOf(x)) + " got " + hex(got) + " want " + hex(want));
        }
      }
    }
  }
  EXPECT_EQ(mm.count, 0u) << mm.first;
}

#if CORE_TEST_HAVE_FLOAT16
TEST(CoreHalf, FloatToHalfRandomPatternsMatchFloat16Type) {
  std::mt19937 rng(20240601u);
  Mismatches mm;
  auto check = [&](std::uint32_t bits) {
    const float x = floatFromBits(bits);
    const std::uint16_t got = ringlab::floatToHalf(x);
    const std::uint16_t want = refFloatToHalf(x);
    if (std::isnan(x)) {
      if (!halfIsNan(got)) mm.add("NaN " + hex(bits) + " -> " + hex(got));
    } else if (got != want) {
      mm.add("x=" + hex(bits) + " got " + hex(got) + " want " + hex(want));
    }
  };
  // Uniform over all bit patterns (mostly far out of half range or deep in underflow).
  for (int i = 0; i < 2'000'000; ++i) check(rng());
  // Exponents around the half range [2^-26, 2^17], where all the rounding happens.
  std::uniform_int_distribution<std::uint32_t> exponent(127 - 26, 127 + 17);
  for (int i = 0; i < 3'000'000; ++i) {
    const std::uint32_t r = rng();
    check((r & 0x807fffffu) | (exponent(rng) << 23));
  }
  EXPECT_EQ(mm.count, 0u) << mm.first;
}
#endif

// ---------------------------------------------------------------------------------------------
// half.hpp: bfloat16

TEST(CoreBfloat16, ToFloatIsTopHalfForAllPatterns) {
  Mismatches mm;
  for (std::uint32_t b = 0; b < 0x10000u; ++b) {
    const float got = ringlab::bfloat16ToFloat(static_cast<std::uint16_t>(b));
    if (bitsOf(got) != (b << 16)) mm.add(hex(b) + " -> " + hex(bitsOf(got)));
  }
  EXPECT_EQ(mm.count, 0u) << mm.first;
}

TEST(CoreBfloat16, RoundTripEveryPattern) {
  Mismatches mm;
  for (std::uint32_t b = 0; b < 0x10000u; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const std::uint16_t back = ringlab::floatToBfloat16(ringlab::bfloat16ToFloat(bits));
    if (bf16IsNan(bits)) {
      if (!bf16IsNan(back)) mm.add("NaN " + hex(b) + " came back as " + hex(back));
    } else if (back != bits) {
      mm.add(hex(b) + " came back as " + hex(back));
    }
  }
  EXPECT_EQ(mm.count, 0u) << mm.first;
}

void checkBfloat16Against(std::uint32_t bits, Mismatches& mm) {
  const float x = floatFromBits(bits);
  const std::uint16_t got = ringlab::floatToBfloat16(x);
  const std::uint16_t want = refFloatToBfloat16(x);
  if (std::isnan(x)) {
    if (!bf16IsNan(got)) mm.add("NaN " + hex(bits) + " -> " + hex(got));
  } else if (got != want) {
    mm.add("x=" + hex(bits) + " got " + hex(got) + " want " + hex(want));
  }
}

TEST(CoreBfloat16, FloatToBfloat16EveryUpperHalfWithTiesAndNeighbours) {
  std::mt19937 rng(7u);
  Mismatches mm;
  for (std::uint32_t upper = 0; upper < 0x10000u; ++upper) {
    for (std::uint32_t lower : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu,
                                static_cast<std::uint32_t>(rng() & 0xffffu)}) {
      checkBfloat16Against((upper << 16) | lower, mm);
    }
  }
  EXPECT_EQ(mm.count, 0u) << mm.first;
}

TEST(CoreBfloat16, FloatToBfloat16RandomPatterns) {
  std::mt19937 rng(12345u);
  Mismatches mm;
  for (int i = 0; i < 4'000'000; ++i) checkBfloat16Against(rng(), mm);
  EXPECT_EQ(mm.count, 0u) << mm.first;
}

TEST(CoreBfloat16, BoundaryCases) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ringlab::floatToBfloat16(1.0f), 0x3f80);
  EXPECT_EQ(ringlab::floatToBfloat16(-1.0f), 0xbf80);
  EXPECT_EQ(ringlab::floatToBfloat16(0.0f), 0x0000);
  EXPECT_EQ(ringlab::floatToBfloat16(-0.0f), 0x8000);
  EXPECT_EQ(ringlab::floatToBfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);         // tie -> even
  EXPECT_EQ(ringlab::floatToBfloat16(1.0f + 3.0f * std::ldexp(1.0f, -8)), 0x3f82);  // tie -> even
  EXPECT_EQ(ringlab::floatToBfloat16(std::nextafter(1.0f + std::ldexp(1.0f, -8), 2.0f)), 0x3f81);
  EXPECT_EQ(ringlab::floatToBfloat16(257.0f), 0x4380);  // tie between 256 and 258 -> 256
  EXPECT_EQ(ringlab::floatToBfloat16(259.0f), 0x4382);  // tie between 258 and 260 -> 260
  EXPECT_EQ(ringlab::floatToBfloat16(std::numeric_limits<float>::max()), 0x7f80);  // -> inf
  EXPECT_EQ(ringlab::floatToBfloat16(-std::numeric_limits<float>::max()), 0xff80);
  EXPECT_EQ(ringlab::floatToBfloat16(inf), 0x7f80);
  EXPECT_EQ(ringlab::floatToBfloat16(-inf), 0xff80);
  EXPECT_EQ(ringlab::floatToBfloat16(std::numeric_limits<float>::denorm_min()), 0x0000);
  for (std::uint32_t nanBits :
       {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fff0000u, 0x7fffffffu}) {
    const std::uint16_t b = ringlab::floatToBfloat16(floatFromBits(nanBits));
    EXPECT_TRUE(bf16IsNan(b)) << "float NaN " << hex(nanBits) << " -> bfloat16 " << hex(b);
  }
}

// ---------------------------------------------------------------------------------------------
// reduce.hpp: serial reference

using ReduceFn = void (*)(const ringlab::Reduction&, void*, const void*, const void*, std::size_t);
using DivideFn = void (*)(DataType, void*, std::size_t, std::uint64_t);
using Bytes = std::vector<unsigned char>;

template <typename T>
T load(const void* p, std::size_t i) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(p) + i * sizeof v, sizeof v);
  return v;
}
template <typename T>
void put(void* p, std::size_t i, T v) {
  std::memcpy(static_cast<unsigned char*>(p) + i * sizeof v, &v, sizeof v);
}

// Integers: arithmetic modulo 2^bits, done in the unsigned twin (plus promotion for 8-bit).
template <typename T>
T refIntOp(ReduceOp op, T x, T y) {
  using U = std::make_unsigned_t<T>;
  using Wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  const Wide ux = static_cast<U>(x);
  const Wide uy = static_cast<U>(y);
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg:
      return static_cast<T>(static_cast<U>(ux + uy));
    case ReduceOp::Prod:
      return static_cast<T>(static_cast<U>(ux * uy));
    case ReduceOp::Min:
      return std::min(x, y);
    case ReduceOp::Max:
      return std::max(x, y);
    case ReduceOp::PreMulSum:  // needs the factor: premul_sum_test.cpp checks it
      ADD_FAILURE() << "no integer reference for a premultiplied sum";
  }
  return T{};
}

template <typename F>
F refFloatOp(ReduceOp op, F x, F y) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg:
      return x + y;
    case ReduceOp::Prod:
      return x * y;
    case ReduceOp::Min:
      return std::min(x, y);
    case ReduceOp::Max:
      return std::max(x, y);
    case ReduceOp::PreMulSum:  // needs the factor: premul_sum_test.cpp checks it
      ADD_FAILURE() << "no reference without the factor for a premultiplied sum";
  }
  return F{};
}

float narrowToFloat(DataType type, std::uint16_t v) {
  return type == DataType::Float16 ? ringlab::halfToFloat(v) : ringlab::bfloat16ToFloat(v);
}
std::uint16_t floatToNarrow(DataType type, float v) {
  return type == DataType::Float16 ? ringlab::floatToHalf(v) : ringlab::floatToBfloat16(v);
}

// expected[i] = a[i] op b[i], element i only.
void refElement(DataType type, ReduceOp op, void* out, const void* a, const void* b,
                std::size_t i) {
  switch (type) {
    case DataType::Int8:
      return put(out, i, refIntOp(op, load<std::int8_t>(a, i), load<std::int8_t>(b, i)));
    case DataType::Uint8:
      return put(out, i, refIntOp(op, load<std::uint8_t>(a, i), load<std::uint8_t>(b, i)));
    case DataType::Int32:
      return put(out, i, refIntOp(op, load<std::int32_t>(a, i), load<std::int32_t>(b, i)));
    case DataType::Uint32:
      return put(out, i, refIntOp(op, load<std::uint32_t>(a, i), load<std::uint32_t>(b, i)));
    case DataType::Int64:
      return put(out, i, refIntOp(op, load<std::int64_t>(a, i), load<std::int64_t>(b, i)));
    case DataType::Uint64:
      return put(out, i, refIntOp(op, load<std::uint64_t>(a, i), load<std::uint64_t>(b, i)));
    case DataType::Float32:
      return put(out, i, refFloatOp(op, load<float>(a, i), load<float>(b, i)));
    case DataType::Float64:
      return put(out, i, refFloatOp(op, load<double>(a, i), load<double>(b, i)));
    case DataType::Float16:
    case DataType::Bfloat16: {
      const float x = narrowToFloat(type, load<std::uint16_t>(a, i));
      const float y = narrowToFloat(type, load<std::uint16_t>(b, i));
      return put(out, i, floatToNarrow(type, refFloatOp(op, x, y)));
    }
  }
}

// Bitwise equality, except that any NaN matches any NaN and, for min/max, +0 matches -0 (which of
// two equal zeros min/max returns is not specified).
bool elementMatches(DataType type, ReduceOp op, const void* got, const void* want, std::size_t i) {
  const std::size_t size = ringlab::dataTypeSize(type);
  const auto* g = static_cast<const unsigned char*>(got) + i * size;
  const auto* w = static_cast<const unsigned char*>(want) + i * size;
  if (std::memcmp(g, w, size) == 0) return true;
  if (!ringlab::isFloating(type)) return false;
  double gv = 0;
  double wv = 0;
  switch (type) {
    case DataType::Float32:
      gv = load<float>(g, 0), wv = load<float>(w, 0);
      break;
    case DataType::Float64:
      gv = load<double>(g, 0), wv = load<double>(w, 0);
      break;
    default:
      gv = narrowToFloat(type, load<std::uint16_t>(g, 0));
      wv = narrowToFloat(type, load<std::uint16_t>(w, 0));
  }
  if (std::isnan(gv) && std::isnan(wv)) return true;
  return (op == ReduceOp::Min || op == ReduceOp::Max) && gv == 0 && wv == 0;
}

std::string elementHex(DataType type, const void* p, std::size_t i) {
  const std::size_t size = ringlab::dataTypeSize(type);
  std::uint64_t v = 0;
  std::memcpy(&v, static_cast<const unsigned char*>(p) + i * size, size);
  return hex(v);
}

// Random inputs: integers uniform over all bits; floats a mix of arbitrary finite bit patterns,
// values in [-100, 100] and small integers (so that ties and exact results occur). No NaN inputs.
void fillRandom(DataType type, void* data, std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> moderate(-100.0, 100.0);
  std::uniform_int_distribution<int> small(-8, 8);
  auto pick = [&]() { return rng() % 4; };
  for (std::size_t i = 0; i < n; ++i) {
    switch (type) {
      case DataType::Int8:
      case DataType::Uint8:
        put(data, i, static_cast<std::uint8_t>(rng()));
        break;
      case DataType::Int32:
      case DataType::Uint32:
        put(data, i, static_cast<std::uint32_t>(rng()));
        break;
      case DataType::Int64:
      case DataType::Uint64:
        put(data, i, (static_cast<std::uint64_t>(rng()) << 32) | rng());
        break;
      case DataType::Float32: {
        float v;
        switch (pick()) {
          case 0:
          case 1:
            do v = floatFromBits(static_cast<std::uint32_t>(rng()));
            while (std::isnan(v));
            break;
          case 2:
            v = static_cast<float>(moderate(rng));
            break;
          default:
            v = static_cast<float>(small(rng));
        }
        put(data, i, v);
        break;
      }
      case DataType::Float64: {
        double v;
        switch (pick()) {
          case 0:
          case 1:
            do v = doubleFromBits((static_cast<std::uint64_t>(rng()) << 32) | rng());
            while (std::isnan(v));
            break;
          case 2:
            v = moderate(rng);
            break;
          default:
            v = small(rng);
        }
        put(data, i, v);
        break;
      }
      case DataType::Float16:
      case DataType::Bfloat16: {
        std::uint16_t v;
        switch (pick()) {
          case 0:
          case 1: {
            do v = static_cast<std::uint16_t>(rng());
            while (type == DataType::Float16 ? halfIsNan(v) : bf16IsNan(v));
            break;
          }
          case 2:
            v = floatToNarrow(type, static_cast<float>(moderate(rng)));
            break;
          default:
            v = floatToNarrow(type, static_cast<float>(small(rng)));
        }
        put(data, i, v);
        break;
      }
    }
  }
}

constexpr std::size_t kSizes[] = {0, 1, 7, 31, 513, 1000, 4099};
constexpr unsigned char kPoison = 0xa5;
constexpr std::size_t kGuard = 16;  // elements of untouched poison after each buffer

enum class Alias { None, OutIsA, OutIsB };

// One call of `fn` on n random elements at an element offset `off` into the buffers, checking the
// result, that inputs that are not also the output are unchanged, and that nothing around the
// output is written.
void checkReduceCase(ReduceFn fn, DataType type, ReduceOp op, std::size_t n, Alias alias,
                     std::size_t off, std::uint32_t seed) {
  SCOPED_TRACE(std::string(ringlab::dataTypeName(type)) + " " + ringlab::reduceOpName(op) +
               " n=" + std::to_string(n) + " alias=" + std::to_string(static_cast<int>(alias)) +
               " offset=" + std::to_string(off));
  const std::size_t size = ringlab::dataTypeSize(type);
  const std::size_t total = (off + n + kGuard) * size;
  std::mt19937 rng(seed);
  Bytes a(total, kPoison);
  Bytes b(total, kPoison);
  Bytes out(total, kPoison);
  void* pa = a.data() + off * size;
  void* pb = b.data() + off * size;
  fillRandom(type, pa, n, rng);
  fillRandom(type, pb, n, rng);
  // Some exact ties between a and b.
  for (std::size_t i = 0; i < n; i += 13) {
    std::memcpy(static_cast<unsigned char*>(pb) + i * size,
                static_cast<unsigned char*>(pa) + i * size, size);
  }
  Bytes want(n * size + 1);
  for (std::size_t i = 0; i < n; ++i) refElement(type, op, want.data(), pa, pb, i);
  const Bytes aBefore = a;
  const Bytes bBefore = b;

  Bytes* result = &out;
  switch (alias) {
    case Alias::None:
      fn({type, op}, out.data() + off * size, pa, pb, n);
      break;
    case Alias::OutIsA:
      fn({type, op}, pa, pa, pb, n);
      result = &a;
      break;
    case Alias::OutIsB:
      fn({type, op}, pb, pa, pb, n);
      result = &b;
      break;
  }
  const unsigned char* got = result->data() + off * size;
  Mismatches mm;
  for (std::size_t i = 0; i < n; ++i) {
    if (!elementMatches(type, op, got, want.data(), i)) {
      mm.add("i=" + std::to_string(i) + " a=" + elementHex(type, pa, i) +
             " b=" + elementHex(type, pb, i) + " got " + elementHex(type, got, i) + " want " +
             elementHex(type, want.data(), i));
    }
  }
  EXPECT_EQ(mm.count, 0u) << mm.first;
  // Bytes outside [off, off + n) of the output keep their poison.
  const Bytes& resultBefore = alias == Alias::None     ? Bytes(total, kPoison)
                              : alias == Alias::OutIsA ? aBefore
                                                       : bBefore;
  for (std::size_t byte = 0; byte < total; ++byte) {
    if (byte >= off * size && byte < (off + n) * size) continue;
    if ((*result)[byte] != resultBefore[byte]) {
      ADD_FAILURE() << "byte " << byte << " outside the output range was written";
      break;
    }
  }
  if (alias != Alias::OutIsA) {
    EXPECT_EQ(a, aBefore) << "input a modified";
  }
  if (alias != Alias::OutIsB) {
    EXPECT_EQ(b, bBefore) << "input b modified";
  }
}

void checkReduceEverything(ReduceFn fn) {
  std::uint32_t seed = 1;
  for (DataType type : ringlab::kAllDataTypes) {
    for (ReduceOp op : ringlab::kAllReduceOps) {
      for (std::size_t n : kSizes) {
        for (Alias alias : {Alias::None, Alias::OutIsA, Alias::OutIsB}) {
          for (std::size_t off : {0, 1}) checkReduceCase(fn, type, op, n, alias, off, seed++);
        }
      }
    }
  }
}

bool cpuHasAvx2Kernels() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
}

TEST(CoreReduce, KernelIsaIsKnown) {
  const std::string isa = ringlab::reduceKernelIsa();
  EXPECT_TRUE(isa == "avx2" || isa == "generic") << isa;
  if (cpuHasAvx2Kernels()) {
    EXPECT_EQ(isa, "avx2");
  } else {
    EXPECT_EQ(isa, "generic");
  }
}

TEST(CoreReduce, MatchesSerialReferenceAllTypesOpsSizesAndAliasing) {
  checkReduceEverything(&ringlab::reduce);
}

TEST(CoreReduce, GenericKernelMatchesSerialReference) {
  checkReduceEverything(&ringlab::generic::reduce);
}

TEST(CoreReduce, Avx2KernelMatchesSerialReference) {
  if (!cpuHasAvx2Kernels()) GTEST_SKIP() << "CPU lacks AVX2/F16C";
  checkReduceEverything(&ringlab::avx2::reduce);
}

// Runs reduce on `n` copies of (x, y) and returns the results; all must be equal.
template <typename T>
T reduceSame(DataType type, ReduceOp op, T x, T y, std::size_t n = 37) {
  std::vector<T> a(n, x);
  std::vector<T> b(n, y);
  std::vector<T> out(n);
  ringlab::reduce({type, op}, out.data(), a.data(), b.data(), n);
  for (std::size_t i = 1; i < n; ++i) {
    EXPECT_EQ(std::memcmp(&out[i], &out[0], sizeof(T)), 0) << "element " << i << " differs";
  }
  return out[0];
}

TEST(CoreReduce, IntegerOverflowWraps) {
  constexpr auto i8min = std::numeric_limits<std::int8_t>::min();
  constexpr auto i32max = std::numeric_limits<std::int32_t>::max();
  constexpr auto i32min = std::numeric_limits<std::int32_t>::min();
  constexpr auto i64max = std::numeric_limits<std::int64_t>::max();
  constexpr auto i64min = std::numeric_limits<std::int64_t>::min();
  constexpr auto u64max = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t n : {std::size_t{1}, std::size_t{37}, std::size_t{600}}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    EXPECT_EQ(reduceSame<std::int32_t>(DataType::Int32, ReduceOp::Sum, i32max, 1, n), i32min);
    EXPECT_EQ(reduceSame<std::int32_t>(DataType::Int32, ReduceOp::Sum, i32min, -1, n), i32max);
    EXPECT_EQ(reduceSame<std::int32_t>(DataType::Int32, ReduceOp::Avg, i32max, 1, n), i32min);
    EXPECT_EQ(reduceSame<std::int32_t>(DataType::Int32, ReduceOp::Prod, 65536, 65536, n), 0);
    EXPECT_EQ(reduceSame<std::int32_t>(DataType::Int32, ReduceOp::Prod, i32min, -1, n), i32min);
    EXPECT_EQ(reduceSame<std::int8_t>(DataType::Int8, ReduceOp::Prod, 16, 16, n), 0);
    EXPECT_EQ(reduceSame<std::int8_t>(DataType::Int8, ReduceOp::Prod, 3, 100, n), 44);
    EXPECT_EQ(reduceSame<std::int8_t>(DataType::Int8, ReduceOp::Sum, 127, 1, n), i8min);
    EXPECT_EQ(reduceSame<std::int8_t>(DataType::Int8, ReduceOp::Prod, i8min, -1, n), i8min);
    EXPECT_EQ(reduceSame<std::uint8_t>(DataType::Uint8, ReduceOp::Sum, 200, 100, n), 44);
    EXPECT_EQ(reduceSame<std::uint8_t>(DataType::Uint8, ReduceOp::Prod, 255, 255, n), 1);
    EXPECT_EQ(reduceSame<std::uint32_t>(DataType::Uint32, ReduceOp::Prod, 65536u, 65536u, n), 0u);
    EXPECT_EQ(reduceSame<std::uint32_t>(DataType::Uint32, ReduceOp::Sum, 0xffffffffu, 2u, n), 1u);
    EXPECT_EQ(reduceSame<std::int64_t>(DataType::Int64, ReduceOp::Sum, i64max, 1, n), i64min);
    EXPECT_EQ(reduceSame<std::int64_t>(DataType::Int64, ReduceOp::Prod, i64min, -1, n), i64min);
    EXPECT_EQ(reduceSame<std::int64_t>(DataType::Int64, ReduceOp::Prod, std::int64_t{1} << 32,
                                       std::int64_t{1} << 32, n),
              0);
    EXPECT_EQ(reduceSame<std::uint64_t>(DataType::Uint64, ReduceOp::Prod, u64max, u64max, n), 1u);
    EXPECT_EQ(reduceSame<std::uint64_t>(DataType::Uint64, ReduceOp::Sum, u64max, 1, n), 0u);
  }
}

TEST(CoreReduce, MinMaxRespectSignedness) {
  EXPECT_EQ(reduceSame<std::int8_t>(DataType::Int8, ReduceOp::Min, -128, 127), -128);
  EXPECT_EQ(reduceSame<std::int8_t>(DataType::Int8, ReduceOp::Max, -1, 0), 0);
  EXPECT_EQ(reduceSame<std::uint8_t>(DataType::Uint8, ReduceOp::Max, 255, 1), 255);
  EXPECT_EQ(reduceSame<std::uint8_t>(DataType::Uint8, ReduceOp::Min, 128, 127), 127);
  EXPECT_EQ(reduceSame<std::int32_t>(DataType::Int32, ReduceOp::Min, -5, 3), -5);
  EXPECT_EQ(reduceSame<std::uint32_t>(DataType::Uint32, ReduceOp::Max, 0xffffffffu, 1u),
            0xffffffffu);
  EXPECT_EQ(reduceSame<std::uint32_t>(DataType::Uint32, ReduceOp::Min, 0x80000000u, 1u), 1u);
  EXPECT_EQ(reduceSame<std::int64_t>(DataType::Int64, ReduceOp::Max, -1, 0), 0);
  EXPECT_EQ(reduceSame<std::int64_t>(DataType::Int64, ReduceOp::Min,
                                     std::numeric_limits<std::int64_t>::min(), 1),
            std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(reduceSame<std::uint64_t>(DataType::Uint64, ReduceOp::Min, std::uint64_t{1} << 63, 1),
            1u);
  EXPECT_EQ(reduceSame<std::uint64_t>(DataType::Uint64, ReduceOp::Max, ~std::uint64_t{0}, 1),
            ~std::uint64_t{0});
  EXPECT_EQ(reduceSame<float>(DataType::Float32, ReduceOp::Min, -1.5f, 0.25f), -1.5f);
  EXPECT_EQ(reduceSame<double>(DataType::Float64, ReduceOp::Max, -1.5, -0.25), -0.25);
}

TEST(CoreReduce, NarrowFloatsRoundOnceToNearestEven) {
  // float16: 1 + 2^-11 is a tie -> 1; (1+2^-10) + 2^-11 is a tie -> 1+2^-9.
  EXPECT_EQ(reduceSame<std::uint16_t>(DataType::Float16, ReduceOp::Sum, 0x3c00, 0x1000), 0x3c00);
  EXPECT_EQ(reduceSame<std::uint16_t>(DataType::Float16, ReduceOp::Sum, 0x3c01, 0x1000), 0x3c02);
  EXPECT_EQ(reduceSame<std::uint16_t>(DataType::Float16, ReduceOp::Sum, 0x6800, 0x3c00),
            0x6800);  // 2048 + 1 -> 2048
  EXPECT_EQ(reduceSame<std::uint16_t>(DataType::Float16, ReduceOp::Sum, 0x7bff, 0x7bff),
            0x7c00);  // 65504 + 65504 -> inf
  EXPECT_EQ(reduceSame<std::uint16_t>(DataType::Float16, ReduceOp::Prod, 0x5c00, 0x5c00),
            0x7c00);  // 256 * 256 -> inf
  EXPECT_EQ(reduceSame<std::uint16_t>(DataType::Float16, ReduceOp::Prod, 0x0001, 0x3800),
            0x0000);  // 2^-24 * 0.5: tie -> 0
  EXPECT_EQ(reduceSame<std::uint16_t>(DataType::Float16, ReduceOp::Max, 0xbc00, 0x3c00), 0x3c00);
  EXPECT_EQ(reduceSame<std::uint16_t>(DataType::Float16, ReduceOp::Min, 0xbc00, 0x3c00), 0xbc00);
  // bfloat16: 256 + 1 ties to 256; 258 + 1 ties to 260.
  EXPECT_EQ(reduceSame<std::uint16_t>(DataType::Bfloat16, ReduceOp::Sum, 0x4380, 0x3f80), 0x4380);
  EXPECT_EQ(reduceSame<std::uint16_t>(DataType::Bfloat16, ReduceOp::Sum, 0x4381, 0x3f80), 0x4382);
  EXPECT_EQ(reduceSame<std::uint16_t>(DataType::Bfloat16, ReduceOp::Min, 0xbf80, 0x3f80), 0xbf80);
  // float32: 2^24 + 1 ties to 2^24.
  EXPECT_EQ(reduceSame<float>(DataType::Float32, ReduceOp::Sum, 16777216.0f, 1.0f), 16777216.0f);
  EXPECT_EQ(reduceSame<double>(DataType::Float64, ReduceOp::Sum, 9007199254740992.0, 1.0),
            9007199254740992.0);
}

TEST(CoreReduce, ZeroCountWritesNothing) {
  for (DataType type : ringlab::kAllDataTypes) {
    for (ReduceOp op : ringlab::kAllReduceOps) {
      Bytes out(64, kPoison);
      const Bytes a(64, 1);
      const Bytes b(64, 2);
      ringlab::reduce({type, op}, out.data(), a.data(), b.data(), 0);
      EXPECT_EQ(out, Bytes(64, kPoison)) << ringlab::dataTypeName(type);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// reduce.hpp: divideBy

// Reference quotient of element i (divisor d) stored into `want`.
void refDivide(DataType type, const void* in, void* want, std::size_t i, std::uint64_t d) {
  switch (type) {
    // C++ integer division truncates toward zero; the divisor is compared in full width.
    case DataType::Int8: {
      const std::int64_t x = load<std::int8_t>(in, i);
      return put(want, i, static_cast<std::int8_t>(x / static_cast<std::int64_t>(d)));
    }
    case DataType::Int32: {
      const std::int64_t x = load<std::int32_t>(in, i);
      return put(want, i, static_cast<std::int32_t>(x / static_cast<std::int64_t>(d)));
    }
    case DataType::Int64: {
      const std::int64_t x = load<std::int64_t>(in, i);
      // |x| <= 2^63 < d when d > INT64_MAX, and x / d truncates to 0 then.
      const std::int64_t q =
          d > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
              ? 0
              : x / static_cast<std::int64_t>(d);
      return put(want, i, q);
    }
    case DataType::Uint8:
      return put(want, i, static_cast<std::uint8_t>(load<std::uint8_t>(in, i) / d));
    case DataType::Uint32:
      return put(want, i, static_cast<std::uint32_t>(load<std::uint32_t>(in, i) / d));
    case DataType::Uint64:
      return put(want, i, load<std::uint64_t>(in, i) / d);
    // Floats: the correctly rounded quotient. The double quotient rounded to float (or from
    // there to float16/bfloat16) is correctly rounded: double rounding is innocuous for division
    // when the intermediate precision is at least 2p+2 bits.
    case DataType::Float32:
      return put(
          want, i,
          static_cast<float>(static_cast<double>(load<float>(in, i)) / static_cast<double>(d)));
    case DataType::Float64:
      return put(want, i, load<double>(in, i) / static_cast<double>(d));
    case DataType::Float16:
    case DataType::Bfloat16: {
      const double x = narrowToFloat(type, load<std::uint16_t>(in, i));
      return put(want, i, floatToNarrow(type, static_cast<float>(x / static_cast<double>(d))));
    }
  }
}

void checkDivide(DivideFn fn, DataType type, const Bytes& input, std::uint64_t d) {
  const std::size_t size = ringlab::dataTypeSize(type);
  const std::size_t n = input.size() / size;
  SCOPED_TRACE(std::string(ringlab::dataTypeName(type)) + " n=" + std::to_string(n) +
               " divisor=" + std::to_string(d));
  Bytes data = input;
  data.resize(input.size() + kGuard * size, kPoison);
  Bytes want(input.size() + 1);
  for (std::size_t i = 0; i < n; ++i) refDivide(type, input.data(), want.data(), i, d);
  fn(type, data.data(), n, d);
  Mismatches mm;
  for (std::size_t i = 0; i < n; ++i) {
    if (!elementMatches(type, ReduceOp::Sum, data.data(), want.data(), i)) {
      mm.add("i=" + std::to_string(i) + " x=" + elementHex(type, input.data(), i) + " got " +
             elementHex(type, data.data(), i) + " want " + elementHex(type, want.data(), i));
    }
  }
  EXPECT_EQ(mm.count, 0u) << mm.first;
  for (std::size_t byte = input.size(); byte < data.size(); ++byte) {
    if (data[byte] != kPoison) {
      ADD_FAILURE() << "byte " << byte << " past the end was written";
      break;
    }
  }
}

TEST(CoreDivide, IntegersTruncateTowardZero) {
  {
    std::int32_t v[] = {-7, 7, -8, -1, 1, 0};
    ringlab::divideBy(DataType::Int32, v, 6, 2);
    EXPECT_EQ(v[0], -3);
    EXPECT_EQ(v[1], 3);
    EXPECT_EQ(v[2], -4);
    EXPECT_EQ(v[3], 0);
    EXPECT_EQ(v[4], 0);
    EXPECT_EQ(v[5], 0);
  }
  {
    std::int8_t v[] = {-7, 7, -128, 127, -1};
    ringlab::divideBy(DataType::Int8, v, 5, 2);
    EXPECT_EQ(v[0], -3);
    EXPECT_EQ(v[1], 3);
    EXPECT_EQ(v[2], -64);
    EXPECT_EQ(v[3], 63);
    EXPECT_EQ(v[4], 0);
  }
  {
    std::int64_t v[] = {-7, 7, std::numeric_limits<std::int64_t>::min(), -5};
    ringlab::divideBy(DataType::Int64, v, 4, 2);
    EXPECT_EQ(v[0], -3);
    EXPECT_EQ(v[1], 3);
    EXPECT_EQ(v[2], std::numeric_limits<std::int64_t>::min() / 2);
    EXPECT_EQ(v[3], -2);
  }
  {
    std::uint8_t v[] = {255, 7, 1};
    ringlab::divideBy(DataType::Uint8, v, 3, 2);
    EXPECT_EQ(v[0], 127);
    EXPECT_EQ(v[1], 3);
    EXPECT_EQ(v[2], 0);
  }
  {
    std::uint64_t v[] = {~std::uint64_t{0}};
    ringlab::divideBy(DataType::Uint64, v, 1, 3);
    EXPECT_EQ(v[0], 6148914691236517205u);
  }
  {
    // Long enough for the vector body and a tail.
    std::vector<std::int32_t> v(37, -7);
    ringlab::divideBy(DataType::Int32, v.data(), v.size(), 2);
    for (std::int32_t x : v) EXPECT_EQ(x, -3);
  }
}

TEST(CoreDivide, FloatsRoundOnce) {
  {
    float v[] = {1.0f, -7.0f, 0.1f};
    ringlab::divideBy(DataType::Float32, v, 3, 3);
    EXPECT_EQ(v[0], 1.0f / 3.0f);
    EXPECT_EQ(v[1], -7.0f / 3.0f);
    EXPECT_EQ(v[2], 0.1f / 3.0f);
  }
  {
    double v[] = {1.0, -7.0};
    ringlab::divideBy(DataType::Float64, v, 2, 3);
    EXPECT_EQ(v[0], 1.0 / 3.0);
    EXPECT_EQ(v[1], -7.0 / 3.0);
  }
  {
    // float16: 1/3 = 0x3555 (0.333251953125, correctly rounded); 7/2 = 3.5 exactly = 0x4300;
    // 2^-24 / 2 is a tie -> 0; 3*2^-24 / 2 = 1.5*2^-24 is a tie -> 2^-23.
    std::uint16_t v[] = {0x3c00, 0x4700, 0x0001, 0x0003};
    ringlab::divideBy(DataType::Float16, v, 1, 3);
    ringlab::divideBy(DataType::Float16, v + 1, 3, 2);
    EXPECT_EQ(v[0], 0x3555);
    EXPECT_EQ(v[1], 0x4300);
    EXPECT_EQ(v[2], 0x0000);
    EXPECT_EQ(v[3], 0x0002);
  }
  {
    // bfloat16: 1/3 -> 0x3eab (0.333984375 is nearer than 0.33203125).
    std::uint16_t v[] = {0x3f80};
    ringlab::divideBy(DataType::Bfloat16, v, 1, 3);
    EXPECT_EQ(v[0], 0x3eab);
  }
}

Bytes randomBytesFor(DataType type, std::size_t n, std::uint32_t seed) {
  Bytes data(n * ringlab::dataTypeSize(type));
  std::mt19937 rng(seed);
  fillRandom(type, data.data(), n, rng);
  return data;
}

Bytes allSixteenBitPatterns(DataType type) {
  Bytes data;
  for (std::uint32_t v = 0; v < 0x10000u; ++v) {
    const auto bits = static_cast<std::uint16_t>(v);
    if (type == DataType::Float16 ? halfIsNan(bits) : bf16IsNan(bits)) continue;
    data.resize(data.size() + 2);
    std::memcpy(data.data() + data.size() - 2, &bits, 2);
  }
  return data;
}

void checkDivideEverything(DivideFn fn) {
  std::uint32_t seed = 99;
  for (DataType type : ringlab::kAllDataTypes) {
    for (std::uint64_t d : {2u, 3u, 7u, 10u, 16u, 100u, 127u}) {
      for (std::size_t n : kSizes) checkDivide(fn, type, randomBytesFor(type, n, seed++), d);
    }
  }
  for (DataType type : {DataType::Float16, DataType::Bfloat16}) {
    for (std::uint64_t d : {2u, 3u, 7u, 17u}) checkDivide(fn, type, allSixteenBitPatterns(type), d);
  }
}

TEST(CoreDivide, MatchesReferenceAllTypesSizesDivisors) {
  checkDivideEverything(&ringlab::divideBy);
}

TEST(CoreDivide, GenericKernelMatchesReference) {
  checkDivideEverything(&ringlab::generic::divideBy);
}

TEST(CoreDivide, Avx2KernelMatchesReference) {
  if (!cpuHasAvx2Kernels()) GTEST_SKIP() << "CPU lacks AVX2/F16C";
  checkDivideEverything(&ringlab::avx2::divideBy);
}

TEST(CoreDivide, DivisorOneLeavesDataBitwiseUntouched) {
  std::mt19937 rng(5u);
  for (DataType type : ringlab::kAllDataTypes) {
    // Arbitrary bytes, NaN payloads included.
    Bytes data(4099 * ringlab::dataTypeSize(type));
    for (auto& byte : data) byte = static_cast<unsigned char>(rng());
    const Bytes before = data;
    ringlab::divideBy(type, data.data(), 4099, 1);
    EXPECT_EQ(data, before) << ringlab::dataTypeName(type);
  }
}

// Regression: the divisor was once narrowed to the element type (int8 / 200 divided by -56).
// divideBy's contract is data[i] / divisor for any uint64 divisor (avg over `divisor` ranks).
// A divisor that does not fit the element type must still truncate toward zero, e.g. every int8
// divided by 200 is 0.
TEST(CoreDivide, DivisorLargerThanElementTypeTruncatesToZero) {
  std::vector<std::int8_t> i8 = {-128, -100, -1, 0, 1, 100, 127};
  ringlab::divideBy(DataType::Int8, i8.data(), i8.size(), 200);
  for (std::size_t i = 0; i < i8.size(); ++i) EXPECT_EQ(i8[i], 0) << "int8 element " << i;

  std::vector<std::int32_t> i32 = {std::numeric_limits<std::int32_t>::min(), -5, 5,
                                   std::numeric_limits<std::int32_t>::max()};
  ringlab::divideBy(DataType::Int32, i32.data(), i32.size(), 3'000'000'000u);
  for (std::size_t i = 0; i < i32.size(); ++i) EXPECT_EQ(i32[i], 0) << "int32 element " << i;

  std::vector<std::uint8_t> u8 = {255, 200, 199};
  ringlab::divideBy(DataType::Uint8, u8.data(), u8.size(), 200);
  EXPECT_EQ(u8[0], 1);
  EXPECT_EQ(u8[1], 1);
  EXPECT_EQ(u8[2], 0);

  std::vector<std::int64_t> i64 = {std::numeric_limits<std::int64_t>::min(), -1, 1,
                                   std::numeric_limits<std::int64_t>::max()};
  ringlab::divideBy(DataType::Int64, i64.data(), i64.size(), (std::uint64_t{1} << 63) + 5);
  for (std::size_t i = 0; i < i64.size(); ++i) EXPECT_EQ(i64[i], 0) << "int64 element " << i;
}

// Regression: a divisor narrowed to uint8 once became 0 and trapped with SIGFPE.
// A divisor of 2^bits for an 8-bit type must give 0, not a division by zero (this would crash
// the whole test binary, hence run in a child process).
int divideByMultipleOf256InChild() {
  std::uint8_t u[] = {255, 1};
  std::int8_t s[] = {-128, 127};
  ringlab::divideBy(DataType::Uint8, u, 2, 256);
  ringlab::divideBy(DataType::Int8, s, 2, 512);
  return u[0] == 0 && u[1] == 0 && s[0] == 0 && s[1] == 0 ? 0 : 1;
}

TEST(CoreDivideDeathTest, DivisorMultipleOf256DoesNotTrapFor8BitTypes) {
  EXPECT_EXIT(std::exit(divideByMultipleOf256InChild()), ::testing::ExitedWithCode(0), "");
}

// ---------------------------------------------------------------------------------------------
// reduce.hpp: copyBytes

// `copy` writes exactly [dst, dst + bytes) with the source's bytes, leaves the source alone and
// touches nothing around the range, for every size and source/destination offset given.
template <typename Copy>
void expectCopiesExactly(Copy copy, unsigned seed, const std::vector<std::size_t>& sizes,
                         std::initializer_list<std::size_t> dstOffsets) {
  std::mt19937 rng(seed);
  for (std::size_t bytes : sizes) {
    for (std::size_t srcOff : {0u, 1u, 31u}) {
      for (std::size_t dstOff : dstOffsets) {
        Bytes src(srcOff + bytes + 64);
        for (auto& byte : src) byte = static_cast<unsigned char>(rng());
        Bytes dst(dstOff + bytes + 64, kPoison);
        const Bytes srcBefore = src;
        copy(dst.data() + dstOff, src.data() + srcOff, bytes);
        ASSERT_EQ(src, srcBefore) << "source modified";
        Bytes want(dstOff + bytes + 64, kPoison);
        std::copy_n(src.begin() + static_cast<std::ptrdiff_t>(srcOff), bytes,
                    want.begin() + static_cast<std::ptrdiff_t>(dstOff));
        ASSERT_EQ(dst, want) << "bytes=" << bytes << " srcOff=" << srcOff << " dstOff=" << dstOff;
      }
    }
  }
}

TEST(CoreCopyBytes, CopiesExactlyTheRangeForAllSizesAndAlignments) {
  std::vector<std::size_t> sizes;
  for (std::size_t s = 0; s <= 300; ++s) sizes.push_back(s);
  for (std::size_t s : {511u, 512u, 513u, 4095u, 4096u, 4097u, 65536u + 77u, 1u << 20}) {
    sizes.push_back(s);
  }
  expectCopiesExactly(
      [](void* dst, const void* src, std::size_t n) { ringlab::copyBytes(dst, src, n); }, 31u,
      sizes, {0u, 3u, 32u});
}

// ---------------------------------------------------------------------------------------------
// streaming_stores.hpp: the same bytes as copyBytes and reduce, whatever the sizes and alignments
// around the 16-byte store boundary and the 4 KiB reduce block.

TEST(CoreStreamingStores, CopyWritesExactlyTheRangeForAllSizesAndAlignments) {
  std::vector<std::size_t> sizes;
  for (std::size_t s = 0; s <= 200; ++s) sizes.push_back(s);
  for (std::size_t s : {4095u, 4096u, 4097u, 65536u + 77u, 1u << 20}) sizes.push_back(s);
  expectCopiesExactly(
      [](void* dst, const void* src, std::size_t n) { ringlab::copyBytesStreaming(dst, src, n); },
      37u, sizes, {0u, 3u, 15u, 16u});
}

// Finite floats only: which NaN a sum of two NaNs returns depends on the order the compiler gives
// the operands of a commutative add, which the two kernels need not share.
template <typename T>
constexpr T kOne = 1;
template <typename T>
void replaceNaNs(Bytes& bytes) {
  for (std::size_t at = 0; at + sizeof(T) <= bytes.size(); at += sizeof(T)) {
    T x;
    std::memcpy(&x, bytes.data() + at, sizeof x);
    if (std::isnan(x)) std::memcpy(bytes.data() + at, &kOne<T>, sizeof x);
  }
}

TEST(CoreStreamingStores, ReduceIsBitwiseThePlainKernelForEveryTypeAndOp) {
  std::mt19937 rng(41u);
  for (ringlab::DataType type : ringlab::kAllDataTypes) {
    const std::size_t esize = ringlab::dataTypeSize(type);
    const std::size_t perBlock = 4096 / esize;
    for (ringlab::ReduceOp op : ringlab::kAllReduceOps) {
      for (std::size_t count :
           {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{65},
            perBlock - 1, perBlock, perBlock + 1, 3 * perBlock + 5}) {
        // Destinations on and off the 16-byte boundary (whole elements off it).
        for (std::size_t outOff : {std::size_t{0}, esize, 16 - esize % 16}) {
          SCOPED_TRACE(std::string(ringlab::dataTypeName(type)) + " " + ringlab::reduceOpName(op) +
                       " count=" + std::to_string(count) + " outOff=" + std::to_string(outOff));
          Bytes a(count * esize);
          Bytes b(count * esize);
          for (auto& byte : a) byte = static_cast<unsigned char>(rng());
          for (auto& byte : b) byte = static_cast<unsigned char>(rng());
          for (Bytes* x : {&a, &b}) {
            if (type == ringlab::DataType::Float32) replaceNaNs<float>(*x);
            if (type == ringlab::DataType::Float64) replaceNaNs<double>(*x);
          }
          Bytes got(outOff + count * esize + 64, kPoison);
          Bytes want = got;
          ringlab::reduceStreaming({type, op}, got.data() + outOff, a.data(), b.data(), count);
          ringlab::reduce({type, op}, want.data() + outOff, a.data(), b.data(), count);
          ASSERT_EQ(got, want);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// partition.hpp

TEST(CorePartition, ChunksAreContiguousBalancedLargerFirstAndSpansAreUnions) {
  for (std::uint64_t count : {0u, 1u, 2u, 3u, 5u, 7u, 8u, 9u, 100u, 1001u}) {
    for (std::uint32_t parts = 1; parts <= 17; ++parts) {
      SCOPED_TRACE("count=" + std::to_string(count) + " parts=" + std::to_string(parts));
      std::vector<std::uint64_t> prefix(parts + 1, 0);
      std::uint64_t minSize = ~std::uint64_t{0};
      std::uint64_t maxSize = 0;
      for (std::uint32_t i = 0; i < parts; ++i) {
        const ringlab::ElementRange c = ringlab::partitionChunk(count, parts, i);
        EXPECT_EQ(c.offset, prefix[i]) << "chunk " << i << " not contiguous";
        EXPECT_EQ(c.end(), c.offset + c.count);
        prefix[i + 1] = prefix[i] + c.count;
        minSize = std::min(minSize, c.count);
        maxSize = std::max(maxSize, c.count);
        // Closed form: ceil for the first count % parts chunks, floor for the rest.
        const std::uint64_t want = count / parts + (i < count % parts ? 1 : 0);
        EXPECT_EQ(c.count, want) << "chunk " << i;
        if (i > 0) {
          EXPECT_LE(c.count, prefix[i] - prefix[i - 1])
              << "chunk " << i << " larger than " << i - 1;
        }
        if (count < parts) {
          EXPECT_EQ(c.count, i < count ? 1u : 0u) << "chunk " << i;
        }
      }
      EXPECT_EQ(prefix[parts], count) << "chunks do not cover [0, count)";
      EXPECT_LE(maxSize - minSize, 1u);
      for (std::uint32_t a = 0; a <= parts; ++a) {
        for (std::uint32_t b = a; b <= parts; ++b) {
          const ringlab::ElementRange span = ringlab::partitionSpan(count, parts, a, b);
          EXPECT_EQ(span.offset, prefix[a]) << "span [" << a << ", " << b << ")";
          EXPECT_EQ(span.count, prefix[b] - prefix[a]) << "span [" << a << ", " << b << ")";
        }
      }
    }
  }
}

TEST(CorePartition, LargeCountsDoNotOverflow) {
  const std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const struct {
    std::uint64_t count;
    std::uint32_t parts;
  } kCases[] = {{(std::uint64_t{1} << 40) + 3, 7},
                {kMax, 3},
                {kMax, 1},
                {kMax, std::numeric_limits<std::uint32_t>::max()},
                {kMax - 1, 1000}};
  for (const auto& c : kCases) {
    SCOPED_TRACE("count=" + std::to_string(c.count) + " parts=" + std::to_string(c.parts));
    const ringlab::ElementRange whole = ringlab::partitionSpan(c.count, c.parts, 0, c.parts);
    EXPECT_EQ(whole, (ringlab::ElementRange{0, c.count}));
    const ringlab::ElementRange last = ringlab::partitionChunk(c.count, c.parts, c.parts - 1);
    EXPECT_EQ(last.end(), c.count);
    EXPECT_EQ(last.count, c.count / c.parts);
    const ringlab::ElementRange first = ringlab::partitionChunk(c.count, c.parts, 0);
    EXPECT_EQ(first.offset, 0u);
    EXPECT_EQ(first.count, c.count / c.parts + (c.count % c.parts ? 1 : 0));
  }
}

TEST(CorePartition, InvalidArgumentsThrow) {
  expectInvalid([] { ringlab::partitionChunk(10, 0, 0); }, "");
  expectInvalid([] { ringlab::partitionSpan(10, 0, 0, 0); }, "");
  expectInvalid([] { ringlab::partitionChunk(0, 0, 0); }, "");
  // Out of range and reversed spans are rejected too.
  expectInvalid([] { ringlab::partitionChunk(10, 4, 4); }, "4");
  expectInvalid([] { ringlab::partitionSpan(10, 4, 0, 5); }, "5");
  expectInvalid([] { ringlab::partitionSpan(10, 4, 3, 2); }, "");
}

// ---------------------------------------------------------------------------------------------
// units.hpp

TEST(CoreUnits, ParseSizeAcceptsDocumentedForms) {
  EXPECT_EQ(ringlab::parseSize("0"), 0u);
  EXPECT_EQ(ringlab::parseSize("8"), 8u);
  EXPECT_EQ(ringlab::parseSize("4K"), 4096u);
  EXPECT_EQ(ringlab::parseSize("4k"), 4096u);
  EXPECT_EQ(ringlab::parseSize("64KiB"), 65536u);
  EXPECT_EQ(ringlab::parseSize("1KB"), 1024u);
  EXPECT_EQ(ringlab::parseSize("1M"), 1048576u);
  EXPECT_EQ(ringlab::parseSize("1MiB"), 1048576u);
  EXPECT_EQ(ringlab::parseSize("1G"), 1073741824u);
  EXPECT_EQ(ringlab::parseSize("2GiB"), 2147483648u);
  EXPECT_EQ(ringlab::parseSize("1T"), 1099511627776u);
  EXPECT_EQ(ringlab::parseSize("16B"), 16u);
  EXPECT_EQ(ringlab::parseSize("007"), 7u);
  EXPECT_EQ(ringlab::parseSize("18446744073709551615"), 18446744073709551615u);
  EXPECT_EQ(ringlab::parseSize("16777215T"), 18446742974197923840u);     // (2^24 - 1) * 2^40
  EXPECT_EQ(ringlab::parseSize("17179869183G"), 18446744072635809792u);  // (2^34 - 1) * 2^30
}

TEST(CoreUnits, ParseSizeRejectsMalformedAndOverflow) {
  for (const char* bad : {"", "abc", "-1", "1.5M", "4X", "K", "12 M", " 12", "12 ", "+1", "1BB",
                          "1KK", "1KiBs", "0x10", "99999999999999999999", "18446744073709551616",
                          "20000000T", "16777216T", "17179869184G"}) {
    SCOPED_TRACE(std::string("input '") + bad + "'");
    expectInvalid([bad] { ringlab::parseSize(bad); }, bad);
  }
}

TEST(CoreUnits, FormatSize) {
  EXPECT_EQ(ringlab::formatSize(0), "0 B");
  EXPECT_EQ(ringlab::formatSize(1), "1 B");
  EXPECT_EQ(ringlab::formatSize(1023), "1023 B");
  EXPECT_EQ(ringlab::formatSize(1024), "1 KiB");
  EXPECT_EQ(ringlab::formatSize(1025), "1025 B");
  EXPECT_EQ(ringlab::formatSize(1536), "1536 B");
  EXPECT_EQ(ringlab::formatSize(3072), "3 KiB");
  EXPECT_EQ(ringlab::formatSize(std::uint64_t{64} << 20), "64 MiB");
  EXPECT_EQ(ringlab::formatSize((std::uint64_t{1} << 20) + 1024), "1025 KiB");
  EXPECT_EQ(ringlab::formatSize(std::uint64_t{1} << 30), "1 GiB");
  EXPECT_EQ(ringlab::formatSize(std::uint64_t{3} << 40), "3 TiB");
  EXPECT_EQ(ringlab::formatSize(std::uint64_t{1} << 50), "1024 TiB");
  EXPECT_EQ(ringlab::formatSize(~std::uint64_t{0}), "18446744073709551615 B");
}

TEST(CoreUnits, CheckedMultiply) {
  const std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(ringlab::checkedMultiply(0, kMax, "x"), 0u);
  EXPECT_EQ(ringlab::checkedMultiply(kMax, 0, "x"), 0u);
  EXPECT_EQ(ringlab::checkedMultiply(kMax, 1, "x"), kMax);
  EXPECT_EQ(ringlab::checkedMultiply(1, kMax, "x"), kMax);
  EXPECT_EQ(ringlab::checkedMultiply(3, 6148914691236517205u, "x"), kMax);
  EXPECT_EQ(ringlab::checkedMultiply(std::uint64_t{1} << 32, (std::uint64_t{1} << 32) - 1, "x"),
            kMax - ((std::uint64_t{1} << 32) - 1));
  expectInvalid([] { ringlab::checkedMultiply(3, 6148914691236517206u, "buffer bytes"); },
                "buffer bytes");
  expectInvalid(
      [] { ringlab::checkedMultiply(std::uint64_t{1} << 32, std::uint64_t{1} << 32, "total"); },
      "total");
  expectInvalid([kMax] { ringlab::checkedMultiply(kMax, 2, "count"); }, "count");
}

// ---------------------------------------------------------------------------------------------
// dtype.hpp, reduce_op.hpp, error.hpp

TEST(CoreDtype, NamesSizesAndAliases) {
  const struct {
    const char* name;
    DataType type;
    std::size_t size;
    bool floating;
  } kTypes[] = {{"int8", DataType::Int8, 1, false},      {"uint8", DataType::Uint8, 1, false},
                {"int32", DataType::Int32, 4, false},    {"uint32", DataType::Uint32, 4, false},
                {"int64", DataType::Int64, 8, false},    {"uint64", DataType::Uint64, 8, false},
                {"float16", DataType::Float16, 2, true}, {"bfloat16", DataType::Bfloat16, 2, true},
                {"float32", DataType::Float32, 4, true}, {"float64", DataType::Float64, 8, true}};
  for (const auto& t : kTypes) {
    EXPECT_EQ(ringlab::parseDataType(t.name), t.type) << t.name;
    EXPECT_STREQ(ringlab::dataTypeName(t.type), t.name);
    EXPECT_EQ(ringlab::dataTypeSize(t.type), t.size) << t.name;
    EXPECT_EQ(ringlab::isFloating(t.type), t.floating) << t.name;
  }
  EXPECT_EQ(ringlab::parseDataType("half"), DataType::Float16);
  EXPECT_EQ(ringlab::parseDataType("float"), DataType::Float32);
  EXPECT_EQ(ringlab::parseDataType("double"), DataType::Float64);
  EXPECT_EQ(ringlab::parseDataType("char"), DataType::Int8);
  EXPECT_EQ(ringlab::parseDataType("int"), DataType::Int32);
  // kAllDataTypes lists every type once.
  EXPECT_EQ(std::size(ringlab::kAllDataTypes), std::size(kTypes));
  for (std::size_t i = 0; i < std::size(ringlab::kAllDataTypes); ++i) {
    for (std::size_t j = i + 1; j < std::size(ringlab::kAllDataTypes); ++j) {
      EXPECT_NE(ringlab::kAllDataTypes[i], ringlab::kAllDataTypes[j]);
    }
  }
}

TEST(CoreDtype, UnknownNamesThrowWithValidList) {
  for (const char* bad : {"int16", "float8", "", "fp16", "int8 ", "bf16x"}) {
    SCOPED_TRACE(std::string("input '") + bad + "'");
    expectInvalid([bad] { ringlab::parseDataType(bad); }, bad);
    for (const char* valid :
         {"int8", "uint8", "int32", "uint64", "float16", "bfloat16", "float32", "float64"}) {
      expectInvalid([bad] { ringlab::parseDataType(bad); }, valid);
    }
  }
}

TEST(CoreReduceOp, NamesRoundTripAndUnknownThrows) {
  const struct {
    const char* name;
    ReduceOp op;
  } kOps[] = {{"sum", ReduceOp::Sum},
              {"prod", ReduceOp::Prod},
              {"min", ReduceOp::Min},
              {"max", ReduceOp::Max},
              {"avg", ReduceOp::Avg}};
  for (const auto& o : kOps) {
    EXPECT_EQ(ringlab::parseReduceOp(o.name), o.op);
    EXPECT_STREQ(ringlab::reduceOpName(o.op), o.name);
  }
  EXPECT_EQ(std::size(ringlab::kAllReduceOps), std::size(kOps));
  for (const char* bad : {"add", "", "mean", "sum "}) {
    SCOPED_TRACE(std::string("input '") + bad + "'");
    expectInvalid([bad] { ringlab::parseReduceOp(bad); }, bad);
    for (const char* valid : {"sum", "prod", "min", "max", "avg"}) {
      expectInvalid([bad] { ringlab::parseReduceOp(bad); }, valid);
    }
  }
}

TEST(CoreError, CodeNamesAndThrowInvalid) {
  for (auto code :
       {ringlab::ErrorCode::InvalidArgument, ringlab::ErrorCode::Mismatch,
        ringlab::ErrorCode::Timeout, ringlab::ErrorCode::PeerLost, ringlab::ErrorCode::Transport,
        ringlab::ErrorCode::Internal, ringlab::ErrorCode::Unreliable}) {
    EXPECT_STRNE(ringlab::errorCodeName(code), "unknown");
    const ringlab::Error e(code, "boom");
    EXPECT_EQ(e.code(), code);
    EXPECT_STREQ(e.what(), "boom");
  }
  expectInvalid([] { ringlab::throwInvalid("bad thing 42"); }, "bad thing 42");
}

// ---------------------------------------------------------------------------------------------
// check_data.hpp

TEST(CoreCheckData, SerialReductionOfCheckInputsHasNoWrongElements) {
  constexpr std::uint64_t kCount = 1031;
  for (DataType type : ringlab::kAllDataTypes) {
    const std::size_t size = ringlab::dataTypeSize(type);
    for (ReduceOp op : ringlab::kAllReduceOps) {
      for (int p : {1, 2, 3, 4, 8, 17}) {
        for (std::uint64_t firstIndex : {std::uint64_t{0}, std::uint64_t{12345}}) {
          SCOPED_TRACE(std::string(ringlab::dataTypeName(type)) + " " + ringlab::reduceOpName(op) +
                       " p=" + std::to_string(p) + " first=" + std::to_string(firstIndex));
          Bytes acc(kCount * size);
          Bytes input(kCount * size);
          ringlab::fillCheckInput(type, op, 0, acc.data(), kCount, firstIndex);
          for (int r = 1; r < p; ++r) {
            ringlab::fillCheckInput(type, op, r, input.data(), kCount, firstIndex);
            ringlab::reduce({type, op}, acc.data(), acc.data(), input.data(), kCount);
          }
          if (op == ReduceOp::Avg) {
            ringlab::divideBy(type, acc.data(), kCount, static_cast<std::uint64_t>(p));
          }
          EXPECT_EQ(ringlab::countWrong(type, op, p, acc.data(), kCount, firstIndex), 0u);

          // One flipped bit in one element: exactly one wrong element.
          Bytes corrupt = acc;
          corrupt[(kCount / 2) * size] ^= 0x01;
          EXPECT_EQ(ringlab::countWrong(type, op, p, corrupt.data(), kCount, firstIndex), 1u);
          // And in the first and last elements as well: three.
          corrupt[0] ^= 0x01;
          corrupt[(kCount - 1) * size] ^= 0x01;
          EXPECT_EQ(ringlab::countWrong(type, op, p, corrupt.data(), kCount, firstIndex), 3u);
          // Checked at the wrong global offset, a sum over few ranks is not all right.
          if (op == ReduceOp::Sum && p <= 4) {
            EXPECT_GT(ringlab::countWrong(type, op, p, acc.data(), kCount, firstIndex + 1), 0u);
          }
        }
      }
    }
  }
}

TEST(CoreCheckData, InputsAreSmallIntegersAndProdInputsArePowersOfTwo) {
  for (DataType type : ringlab::kAllDataTypes) {
    for (ReduceOp op : ringlab::kAllReduceOps) {
      for (int rank = 0; rank < 20; ++rank) {
        for (std::uint64_t index = 0; index < 50; ++index) {
          const double v = ringlab::checkInputValue(type, op, rank, index);
          EXPECT_EQ(v, std::trunc(v));
          EXPECT_LE(std::fabs(v), 8.0);
          if (op == ReduceOp::Prod) {
            EXPECT_TRUE(v == 1.0 || v == 2.0) << v;
          }
        }
      }
    }
  }
}

TEST(CoreCheckData, StoreValueWrapsIntegersAndRoundsFloats) {
  unsigned char buf[16];
  ringlab::storeValue(DataType::Int8, buf, 0, 130.0);
  EXPECT_EQ(load<std::int8_t>(buf, 0), -126);
  ringlab::storeValue(DataType::Int8, buf, 1, -4.0);
  EXPECT_EQ(load<std::int8_t>(buf, 1), -4);
  ringlab::storeValue(DataType::Uint8, buf, 0, 259.0);
  EXPECT_EQ(load<std::uint8_t>(buf, 0), 3);
  ringlab::storeValue(DataType::Uint8, buf, 0, -1.0);
  EXPECT_EQ(load<std::uint8_t>(buf, 0), 255);
  ringlab::storeValue(DataType::Int32, buf, 2, 4294967296.0 + 5.0);
  EXPECT_EQ(load<std::int32_t>(buf, 2), 5);
  ringlab::storeValue(DataType::Uint64, buf, 1, -2.0);
  EXPECT_EQ(load<std::uint64_t>(buf, 1), ~std::uint64_t{0} - 1);
  ringlab::storeValue(DataType::Float16, buf, 3, 1.0 + std::ldexp(1.0, -11));
  EXPECT_EQ(load<std::uint16_t>(buf, 3), 0x3c00);  // tie -> even
  ringlab::storeValue(DataType::Float16, buf, 3, 131072.0);
  EXPECT_EQ(load<std::uint16_t>(buf, 3), 0x7c00);  // 2^17 -> inf
  ringlab::storeValue(DataType::Bfloat16, buf, 0, 257.0);
  EXPECT_EQ(load<std::uint16_t>(buf, 0), 0x4380);
  ringlab::storeValue(DataType::Float32, buf, 1, -3.0);
  EXPECT_EQ(load<float>(buf, 1), -3.0f);
  ringlab::storeValue(DataType::Float64, buf, 1, 0.1);
  EXPECT_EQ(load<double>(buf, 1), 0.1);
}

}  // namespace
