#include "ringlab/core/dtype.hpp"

#include "ringlab/core/enum_names.hpp"
#include "ringlab/core/error.hpp"

namespace ringlab {

std::size_t dataTypeSize(DataType type) {
  switch (type) {
    case DataType::Int8:
    case DataType::Uint8:
      return 1;
    case DataType::Float16:
    case DataType::Bfloat16:
      return 2;
    case DataType::Int32:
    case DataType::Uint32:
    case DataType::Float32:
      return 4;
    case DataType::Int64:
    case DataType::Uint64:
    case DataType::Float64:
      return 8;
  }
  throw Error(ErrorCode::Internal, "unknown DataType value");
}

bool isFloating(DataType type) {
  return type == DataType::Float16 || type == DataType::Bfloat16 || type == DataType::Float32 ||
         type == DataType::Float64;
}

namespace {

// Canonical names first; the later entries of a type are nccl-tests' aliases.
constexpr EnumName<DataType> kDataTypeNames[] = {
    {DataType::Int8, "int8"},     {DataType::Int8, "char"},         {DataType::Uint8, "uint8"},
    {DataType::Int32, "int32"},   {DataType::Int32, "int"},         {DataType::Uint32, "uint32"},
    {DataType::Int64, "int64"},   {DataType::Uint64, "uint64"},     {DataType::Float16, "float16"},
    {DataType::Float16, "half"},  {DataType::Bfloat16, "bfloat16"}, {DataType::Float32, "float32"},
    {DataType::Float32, "float"}, {DataType::Float64, "float64"},   {DataType::Float64, "double"}};

}  // namespace

const char* dataTypeName(DataType type) {
  return enumName(std::span(kDataTypeNames), type).data();
}

DataType parseDataType(std::string_view name) {
  return parseEnum(std::span(kDataTypeNames), name, "datatype");
}

LoggedType parseLoggedType(std::string_view name) {
  static const std::string_view kLogOnly[] = {"f8e4m3", "f8e5m2", "fp8_e4m3", "fp8_e5m2"};
  for (std::string_view fp8 : kLogOnly) {
    if (fp8 == name) return {std::string(name), 1, std::nullopt};
  }
  try {
    const DataType type = parseDataType(name);
    return {dataTypeName(type), dataTypeSize(type), type};
  } catch (const Error& e) {
    throwInvalid(std::string(e.what()) + "; in logs also f8e4m3, f8e5m2, fp8_e4m3, fp8_e5m2");
  }
}

std::vector<DataType> parseDataTypes(std::string_view nameOrAll) {
  if (nameOrAll != "all") return {parseDataType(nameOrAll)};
  return {DataType::Int8,    DataType::Uint8,   DataType::Int32,   DataType::Uint32,
          DataType::Int64,   DataType::Uint64,  DataType::Float16, DataType::Float32,
          DataType::Float64, DataType::Bfloat16};
}

std::uint64_t elementCount(std::uint64_t bytes, DataType type, std::string_view what) {
  const std::uint64_t size = dataTypeSize(type);
  if (bytes % size != 0) {
    throwInvalid(std::string(what) + " " + std::to_string(bytes) + " is not a multiple of the " +
                 dataTypeName(type) + " size (" + std::to_string(size) + " bytes)");
  }
  return bytes / size;
}

}  // namespace ringlab
