// The one bounded integer reader for environment variables (core/environment.hpp): in range it
// gives the number; empty, garbage and out-of-range texts are refused with the variable, the text,
// what the number is and the range.
#include <gtest/gtest.h>

#include <cstdlib>

#include "expect_error.hpp"
#include "ringlab/core/environment.hpp"

namespace ringlab {
namespace {

TEST(EnvironmentInteger, TheBoundsAreInclusive) {
  EXPECT_EQ(environmentInteger("RINGLAB_X", "1", "the count", 1, 8), 1);
  EXPECT_EQ(environmentInteger("RINGLAB_X", "8", "the count", 1, 8), 8);
  EXPECT_EQ(environmentInteger("RINGLAB_X", "-3", "the offset", -5, 5), -3);
  test::expectInvalid([] { environmentInteger("RINGLAB_X", "0", "the count", 1, 8); },
                      {"RINGLAB_X='0': the count must be an integer in 1..8"});
  test::expectInvalid([] { environmentInteger("RINGLAB_X", "9", "the count", 1, 8); },
                      {"RINGLAB_X='9': the count must be an integer in 1..8"});
  test::expectInvalid(
      [] { environmentInteger("RINGLAB_X", "99999999999999999999", "the count", 1, 8); },
      {"RINGLAB_X='99999999999999999999': the count must be an integer in 1..8"});
}

TEST(EnvironmentInteger, EmptyAndGarbageAreRefused) {
  for (const char* text : {"", " 4", "4 ", "+4", "4x", "0x4", "4.0", "four", "-"}) {
    test::expectInvalid([&] { environmentInteger("RINGLAB_X", text, "the count", 1, 8); },
                        {std::string("RINGLAB_X='") + text + "': the count must be an integer"});
  }
  // Shown printably: a value cannot reach the terminal raw.
  test::expectInvalid([] { environmentInteger("RINGLAB_X", "4\n", "the count", 1, 8); },
                      {"RINGLAB_X='4\\x0a'"});
}

TEST(EnvironmentInteger, ReadsTheVariableAndUnsetIsNone) {
  const char* name = "RINGLAB_ENVIRONMENT_TEST_INTEGER";
  ::unsetenv(name);
  EXPECT_FALSE(readEnvironmentInteger(name, "the count", 1, 8).has_value());
  ::setenv(name, "5", 1);
  EXPECT_EQ(readEnvironmentInteger(name, "the count", 1, 8), 5);
  ::setenv(name, "", 1);  // set but empty is not unset
  test::expectInvalid(
      [&] { readEnvironmentInteger(name, "the count", 1, 8); },
      {"RINGLAB_ENVIRONMENT_TEST_INTEGER='': the count must be an integer in 1..8"});
  ::unsetenv(name);
}

}  // namespace
}  // namespace ringlab
