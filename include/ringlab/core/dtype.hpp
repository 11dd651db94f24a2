#pragma once
// Element datatypes. Chunks, segments and counts are always whole elements of one of these.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab {

enum class DataType {
  Int8,
  Uint8,
  Int32,
  Uint32,
  Int64,
  Uint64,
  Float16,
  Bfloat16,
  Float32,
  Float64
};

inline constexpr DataType kAllDataTypes[] = {
    DataType::Int8,   DataType::Uint8,   DataType::Int32,    DataType::Uint32,  DataType::Int64,
    DataType::Uint64, DataType::Float16, DataType::Bfloat16, DataType::Float32, DataType::Float64};

std::size_t dataTypeSize(DataType type);
bool isFloating(DataType type);
// Canonical name: int8 ... float64.
const char* dataTypeName(DataType type);
// Accepts the canonical names and nccl-tests' aliases (half, float, double, ...);
// throws InvalidArgument naming the value and the valid names otherwise.
DataType parseDataType(std::string_view name);

// A datatype as a measurement log names it: ringlab's own types (name canonical: "float32" for
// "float"), and types ringlab does not run that other programs' logs print, named as the log names
// them: nccl-tests' f8e4m3 and f8e5m2, rccl-tests' fp8_e4m3 and fp8_e5m2, one byte each. Their
// rows are measurements all the same: only what needs the type itself (a reduction's cost on CPU
// ranks) cannot use them, and says so.
struct LoggedType {
  std::string name;
  std::size_t size = 0;
  std::optional<DataType> runnable;  // none for a type ringlab does not run
};
// Throws InvalidArgument naming the value and every name a log may use.
LoggedType parseLoggedType(std::string_view name);

// One name as parseDataType, or "all": every datatype in the order nccl-tests' `-d all` runs them
// (its common.cu test_types: int8 uint8 int32 uint32 int64 uint64 half float double bfloat16).
std::vector<DataType> parseDataTypes(std::string_view nameOrAll);

// bytes / dataTypeSize(type); throws InvalidArgument, naming `what` (e.g. "--size") and the
// value, when bytes is not a whole number of elements.
std::uint64_t elementCount(std::uint64_t bytes, DataType type, std::string_view what);

}  // namespace ringlab
