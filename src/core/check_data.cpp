#include "ringlab/core/check_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ringlab/core/error.hpp"
#include "ringlab/core/half.hpp"

namespace ringlab {
namespace {

bool isUnsigned(DataType type) {
  return type == DataType::Uint8 || type == DataType::Uint32 || type == DataType::Uint64;
}

}  // namespace

double checkInputValue(DataType type, ReduceOp op, int rank, std::uint64_t index) {
  if (op == ReduceOp::Prod) return (index + rank) % 3 == 0 ? 2.0 : 1.0;
  const double v = static_cast<double>((index * 13 + static_cast<std::uint64_t>(rank) * 7) % 9);
  return isUnsigned(type) ? v : v - 4.0;
}

double checkExpectedValue(DataType type, ReduceOp op, int ranks, std::uint64_t index) {
  double acc = checkInputValue(type, op, 0, index);
  for (int r = 1; r < ranks; ++r) {
    const double v = checkInputValue(type, op, r, index);
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg:
        acc += v;
        break;
      case ReduceOp::Prod:
        acc *= v;
        break;
      case ReduceOp::Min:
        acc = std::min(acc, v);
        break;
      case ReduceOp::Max:
        acc = std::max(acc, v);
        break;
      case ReduceOp::PreMulSum:
        throw Error(ErrorCode::Internal,
                    "the closed-form check has no premul_sum: it lacks the factor");
    }
  }
  if (op != ReduceOp::Avg) return acc;
  const double mean = acc / ranks;
  return isFloating(type) ? mean : std::trunc(mean);  // integer avg truncates toward zero
}

void storeValue(DataType type, void* data, std::uint64_t index, double value) {
  auto put = [&](auto v) {
    std::memcpy(static_cast<char*>(data) + index * sizeof v, &v, sizeof v);
  };
  // Integers go through int64 so that out-of-range values wrap modulo 2^bits.
  const auto wrapped = static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
  switch (type) {
    case DataType::Int8:
      return put(static_cast<std::int8_t>(wrapped));
    case DataType::Uint8:
      return put(static_cast<std::uint8_t>(wrapped));
    case DataType::Int32:
      return put(static_cast<std::int32_t>(wrapped));
    case DataType::Uint32:
      return put(static_cast<std::uint32_t>(wrapped));
    case DataType::Int64:
      return put(static_cast<std::int64_t>(wrapped));
    case DataType::Uint64:
      return put(wrapped);
    case DataType::Float16:
      return put(floatToHalf(static_cast<float>(value)));
    case DataType::Bfloat16:
      return put(floatToBfloat16(static_cast<float>(value)));
    case DataType::Float32:
      return put(static_cast<float>(value));
    case DataType::Float64:
      return put(value);
  }
}

void fillCheckInput(DataType type, ReduceOp op, int rank, void* data, std::uint64_t count,
                    std::uint64_t firstIndex) {
  for (std::uint64_t i = 0; i < count; ++i) {
    storeValue(type, data, i, checkInputValue(type, op, rank, firstIndex + i));
  }
}

std::uint64_t countWrong(DataType type, ReduceOp op, int ranks, const void* data,
                         std::uint64_t count, std::uint64_t firstIndex) {
  const std::size_t size = dataTypeSize(type);
  std::uint64_t wrong = 0;
  unsigned char expected[8];
  for (std::uint64_t i = 0; i < count; ++i) {
    storeValue(type, expected, 0, checkExpectedValue(type, op, ranks, firstIndex + i));
    if (std::memcmp(expected, static_cast<const unsigned char*>(data) + i * size, size) != 0)
      ++wrong;
  }
  return wrong;
}

}  // namespace ringlab
