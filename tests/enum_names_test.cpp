// Names of enum values from one table per enum (core/enum_names.hpp): every value's name parses
// back to it, aliases parse too, and an unknown name is refused with the list of valid ones.
#include <gtest/gtest.h>

#include <span>
#include <string>

#include "expect_error.hpp"
#include "ringlab/core/collective.hpp"
#include "ringlab/core/dtype.hpp"
#include "ringlab/core/enum_names.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/reduce_op.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab {
namespace {

enum class Fruit { Apple, Pear, Quince };
constexpr EnumName<Fruit> kFruitNames[] = {{Fruit::Apple, "apple"},
                                           {Fruit::Pear, "pear"},
                                           {Fruit::Apple, "malus"},
                                           {Fruit::Pear, "pyrus"}};

TEST(EnumNames, TheFirstEntryNamesAValueAndAliasesParseToIt) {
  EXPECT_EQ(enumName(std::span(kFruitNames), Fruit::Apple), "apple");
  EXPECT_EQ(enumName(std::span(kFruitNames), Fruit::Pear), "pear");
  EXPECT_EQ(enumName(std::span(kFruitNames), Fruit::Quince), "unknown");  // not in the table
  EXPECT_EQ(parseEnum(std::span(kFruitNames), "malus", "fruit"), Fruit::Apple);
  EXPECT_EQ(parseEnum(std::span(kFruitNames), "pear", "fruit"), Fruit::Pear);
  EXPECT_EQ(enumNameList(std::span(kFruitNames)), "apple (malus), pear (pyrus)");
}

TEST(EnumNames, AnUnknownNameIsRefusedWithTheValidOnes) {
  test::expectInvalid([&] { parseEnum(std::span(kFruitNames), "quince", "fruit"); },
                      {"unknown fruit 'quince': valid are apple (malus), pear (pyrus)"});
  // A name from a file or a peer is shown printably.
  test::expectInvalid([&] { parseEnum(std::span(kFruitNames), "a\x1b[2J", "fruit"); },
                      {"unknown fruit 'a\\x1b[2J'"});
}

TEST(EnumNames, EveryDataTypeRoundTripsAndAliasesParse) {
  for (DataType type : kAllDataTypes) EXPECT_EQ(parseDataType(dataTypeName(type)), type);
  EXPECT_STREQ(dataTypeName(DataType::Bfloat16), "bfloat16");
  EXPECT_EQ(parseDataType("half"), DataType::Float16);
  EXPECT_EQ(parseDataType("char"), DataType::Int8);
  EXPECT_EQ(parseDataType("int"), DataType::Int32);
  EXPECT_EQ(parseDataType("float"), DataType::Float32);
  EXPECT_EQ(parseDataType("double"), DataType::Float64);
  test::expectInvalid(
      [&] { parseDataType("float8"); },
      {"unknown datatype 'float8': valid are int8 (char), uint8, int32 (int), uint32, "
       "int64, uint64, float16 (half), bfloat16, float32 (float), float64 (double)"});
}

TEST(EnumNames, EveryReduceOpRoundTripsAndPremulSumNeedsItsFactor) {
  for (ReduceOp op : kAllReduceOps) EXPECT_EQ(parseReduceOp(reduceOpName(op)), op);
  EXPECT_STREQ(reduceOpName(ReduceOp::PreMulSum), "premul_sum");
  // Named, but no name alone chooses it: its factor travels beside it.
  test::expectInvalid([&] { parseReduceOp("premul_sum"); },
                      {"unknown reduction op 'premul_sum': valid are sum, prod, min, max, avg"});
}

TEST(EnumNames, EveryCollectiveRoundTrips) {
  for (Collective c : kAllCollectives) EXPECT_EQ(parseCollective(collectiveName(c)), c);
  EXPECT_STREQ(collectiveName(Collective::ReduceScatter), "reduce_scatter");
  test::expectInvalid(
      [&] { parseCollective("allreduce "); },
      {"unknown collective 'allreduce ': valid are allreduce, reduce_scatter, allgather, "
       "reduce, broadcast, alltoall"});
}

TEST(EnumNames, ErrorCodesAndVolumeConventionsHaveTheirNames) {
  EXPECT_STREQ(errorCodeName(ErrorCode::InvalidArgument), "invalid argument");
  EXPECT_STREQ(errorCodeName(ErrorCode::PeerLost), "peer lost");
  EXPECT_STREQ(errorCodeName(ErrorCode::Unreliable), "unreliable measurement");
  EXPECT_STREQ(schedule::volumeConventionName(schedule::VolumeConvention::SendRecv), "send+recv");
  EXPECT_STREQ(schedule::volumeConventionName(schedule::VolumeConvention::LinkHop), "link-hop");
}

}  // namespace
}  // namespace ringlab
