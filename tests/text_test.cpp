// The text helpers every layer and front end shares (core/text.hpp) and the bounded whole-file
// reader (core/file.hpp): each edge the copies they replaced handled differently.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <string>

#include "expect_error.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab {
namespace {

using test::expectInvalid;

std::string tempPath(const std::string& name) {
  return ::testing::TempDir() + std::to_string(getpid()) + "_text_" + name;
}

TEST(TextFile, ReadsAWholeFile) {
  const std::string path = tempPath("normal.txt");
  std::ofstream(path) << "line one\nline two\n";
  EXPECT_EQ(readTextFile(path, "input"), "line one\nline two\n");
  std::ofstream(path, std::ios::trunc).close();
  EXPECT_EQ(readTextFile(path, "input"), "");
}

TEST(TextFile, NamesAMissingFileAndADirectory) {
  expectInvalid([] { readTextFile("no/such/file.json", "profile"); },
                "profile no/such/file.json: cannot be read");
  expectInvalid([] { readTextFile(::testing::TempDir(), "profile"); },
                "is a directory, not a file");
  expectInvalid([] { readTextFile("", "timeline"); }, "empty path");
}

TEST(TextFile, RefusesMoreThanTheBound) {
  const std::string path = tempPath("large.txt");
  std::ofstream(path) << std::string(3 << 20, 'x');
  expectInvalid(
      [&] {
        readTextFile(path, "trace", {"a test format", 1 << 20});
      },
      "trace " + path + ": larger than 1 MiB, the limit for a test format");
  EXPECT_EQ(readTextFile(path, "trace", {"a test format", 4 << 20}).size(), 3u << 20);
  expectInvalid([&] { readTextFile(path, "profile", kProfileInput); },
                "larger than 1 MiB, the limit for a profile");
}

TEST(TextFile, RefusesSpecialFilesWithoutReadingOrWaiting) {
  // /dev/zero never ends and a FIFO without a writer never starts: both named, neither read.
  expectInvalid([] { readTextFile("/dev/zero", "input"); },
                "input /dev/zero: not a regular file (a character device)");
  const std::string fifo = tempPath("fifo");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expectInvalid([&] { readTextFile(fifo, "timeline"); },
                "timeline " + fifo + ": not a regular file (a FIFO or pipe)");
  ::unlink(fifo.c_str());
}

TEST(Text, ParseNumberTakesTheWholeTextOnly) {
  EXPECT_EQ(parseNumber("2.5", "x"), 2.5);
  EXPECT_EQ(parseNumber("1e-3", "x"), 1e-3);
  EXPECT_EQ(parseNumber("-4", "x"), -4);
  for (const char* bad : {"", " 4", "4 ", "4x", "x", "nan", "inf", "1e999", "1,5"}) {
    expectInvalid([&] { parseNumber(bad, "--alpha"); },
                  std::string("--alpha '") + bad + "': not a number");
  }
}

TEST(Text, ParseIntegerTakesAWholeNumberInRange) {
  EXPECT_EQ(parseInteger("0", "n", 0, 10), 0);
  EXPECT_EQ(parseInteger("-3", "n", -5, 10), -3);
  EXPECT_EQ(parseInteger("9223372036854775807", "n", 0, std::numeric_limits<std::int64_t>::max()),
            std::numeric_limits<std::int64_t>::max());
  for (const char* bad : {"", "11", "-1", "2.0", "1e3", "3 ", "99999999999999999999"}) {
    expectInvalid([&] { parseInteger(bad, "--nodes", 0, 10); }, "must be a whole number in 0..10");
  }
}

TEST(Text, SplitListKeepsEmptyItems) {
  EXPECT_EQ(splitList("a,b,,c"), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_TRUE(splitList("").empty());
  EXPECT_EQ(splitList(","), (std::vector<std::string>{"", ""}));
  EXPECT_EQ(splitList("one"), (std::vector<std::string>{"one"}));
  EXPECT_EQ(splitList("0,1|1,0", '|'), (std::vector<std::string>{"0,1", "1,0"}));
}

TEST(Text, FormatNumberShowsSixSignificantDigits) {
  EXPECT_EQ(formatNumber(8), "8");
  EXPECT_EQ(formatNumber(0.001), "0.001");
  EXPECT_EQ(formatNumber(2.5e10), "2.5e+10");
  EXPECT_EQ(formatNumber(1234567), "1.23457e+06");
  EXPECT_EQ(formatNumber(-0.5), "-0.5");
}

}  // namespace
}  // namespace ringlab
