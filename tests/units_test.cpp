// core/units' quantities: every unit ringlab prints is read back to the value printed, a bare
// number other than "0" is refused with the accepted forms, garbage is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/describe.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/topo/file_format.hpp"
#include "ringlab/topo/generators.hpp"

namespace ringlab {
namespace {

using test::expectInvalid;

// Relative closeness: a printed value carries a few significant digits.
void expectClose(double got, double want, double relative, const std::string& text) {
  EXPECT_LE(std::abs(got - want), relative * std::abs(want)) << text << " -> " << got;
}

// The one check of a sweep's factor: every front end and configuration names it its own way.
TEST(Units, AStepFactorBelowTwoIsRefusedUnderTheCallersName) {
  EXPECT_EQ(checkedStepFactor(2, "the factor"), 2u);
  EXPECT_EQ(checkedStepFactor(std::uint64_t{1} << 40, "the factor"), std::uint64_t{1} << 40);
  test::expectInvalid([] { checkedStepFactor(1LL, "-f/--stepfactor"); },
                      {"-f/--stepfactor 1: must be >= 2"});
  test::expectInvalid([] { checkedStepFactor(-3LL, "step_factor"); },
                      {"step_factor -3: must be >= 2"});  // signed: reported, not wrapped
  test::expectInvalid([] { geometricSizes(8, 64, 0); }, {"size sweep factor 0: must be >= 2"});
}

TEST(Units, EveryTimeUnit) {
  EXPECT_DOUBLE_EQ(parseSeconds("5s"), 5.0);
  EXPECT_DOUBLE_EQ(parseSeconds("1.5ms"), 1.5e-3);
  EXPECT_DOUBLE_EQ(parseSeconds("5us"), 5e-6);
  EXPECT_DOUBLE_EQ(parseSeconds("5µs"), 5e-6);
  EXPECT_DOUBLE_EQ(parseSeconds("80ns"), 80e-9);
  EXPECT_DOUBLE_EQ(parseSeconds("2e-6s"), 2e-6);
  EXPECT_DOUBLE_EQ(parseSeconds("3.250 us"), 3.25e-6);  // as formatMicros prints it
}

TEST(Units, EveryBandwidthUnit) {
  EXPECT_DOUBLE_EQ(parseBandwidth("12.5GB/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(parseBandwidth("12.50 GB/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(parseBandwidth("900MB/s"), 900e6);
  EXPECT_DOUBLE_EQ(parseBandwidth("4KB/s"), 4e3);
  EXPECT_DOUBLE_EQ(parseBandwidth("4kB/s"), 4e3);
  EXPECT_DOUBLE_EQ(parseBandwidth("2TB/s"), 2e12);
  EXPECT_DOUBLE_EQ(parseBandwidth("100B/s"), 100.0);
  EXPECT_DOUBLE_EQ(parseBandwidth("1GiB/s"), 1073741824.0);  // 2^30 B/s
  EXPECT_DOUBLE_EQ(parseBandwidth("1MiB/s"), 1048576.0);
  EXPECT_DOUBLE_EQ(parseBandwidth("1KiB/s"), 1024.0);
  EXPECT_DOUBLE_EQ(parseBandwidth("1TiB/s"), 1099511627776.0);
  EXPECT_DOUBLE_EQ(parseBandwidth("100Gb/s"), 12.5e9);  // bits
  EXPECT_DOUBLE_EQ(parseBandwidth("100Gbit/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(parseBandwidth("100Gbps"), 12.5e9);
  EXPECT_DOUBLE_EQ(parseBandwidth("800Mb/s"), 100e6);
  EXPECT_DOUBLE_EQ(parseBandwidth("8Tb/s"), 1e12);
}

TEST(Units, PerByteCostsAndRates) {
  EXPECT_DOUBLE_EQ(parseSecondsPerByte("0.05ns/B"), 0.05e-9);
  EXPECT_DOUBLE_EQ(parseSecondsPerByte("0.0800 ns/B"), 0.08e-9);
  EXPECT_DOUBLE_EQ(parseSecondsPerByte("50ps/B"), 50e-12);
  EXPECT_DOUBLE_EQ(parseSecondsPerByte("1e-09 s/B"), 1e-9);
  EXPECT_DOUBLE_EQ(parseSecondsPerByte("2us/B"), 2e-6);
  EXPECT_DOUBLE_EQ(parseSecondsPerByte("20GB/s"), 1 / 20e9);  // a rate: its inverse
  EXPECT_DOUBLE_EQ(parseSecondsPerByte("1GiB/s"), 1 / 1073741824.0);
}

TEST(Units, ZeroAloneIsAcceptedBare) {
  EXPECT_EQ(parseSeconds("0"), 0.0);
  EXPECT_EQ(parseSecondsPerByte("0"), 0.0);
  EXPECT_EQ(parseSeconds("0us"), 0.0);
  // A bandwidth of zero passes the unit check and fails its own: a link must carry something.
  expectInvalid([] { parseBandwidth("0"); }, "0: a bandwidth must be > 0");
  expectInvalid([] { parseBandwidth("0GB/s"); }, "0GB/s: a bandwidth must be > 0");
  expectInvalid([] { parseSeconds("0.0"); }, "0.0: a time needs a unit");
}

TEST(Units, BareNumbersAreRefusedWithTheAcceptedForms) {
  expectInvalid([] { parseSeconds("5"); }, "5: a time needs a unit, e.g. 5us, 5ms, 5s");
  expectInvalid([] { parseBandwidth("12.5"); },
                "12.5: a bandwidth needs a unit, e.g. 12.5GB/s, 12.5GiB/s, 12.5Gb/s");
  expectInvalid([] { parseSecondsPerByte("0.05"); },
                "0.05: a per-byte cost needs a unit, e.g. 0.05ns/B, 0.05ps/B, 0.05us/B, or a "
                "rate such as 20GB/s");
  expectInvalid([] { parseSeconds("1e-6"); }, "1e-6: a time needs a unit");
}

TEST(Units, GarbageIsRefused) {
  for (const char* bad : {"", "fast", "5 parsecs", "3parsecs", "nan", "inf", "5ss", "us", "5 s s",
                          "0x10us", "5sec", "5S", "--5us", "1e400s"}) {
    SCOPED_TRACE(std::string("time '") + bad + "'");
    expectInvalid([bad] { parseSeconds(bad); }, "");
  }
  expectInvalid([] { parseSeconds("-5us"); }, "-5us: a time must not be negative");
  expectInvalid([] { parseSeconds("3parsecs"); }, "accepted units: ns, us, µs, ms, s");
  for (const char* bad : {"-1GB/s", "abc", "12.5gb/s", "5GB", "5 GB / s", "infGB/s", "5us"}) {
    SCOPED_TRACE(std::string("bandwidth '") + bad + "'");
    expectInvalid([bad] { parseBandwidth(bad); }, "");
  }
  for (const char* bad : {"-1ns/B", "0.05ns", "5GB", "fast", "0GB/s", "1ns/b"}) {
    SCOPED_TRACE(std::string("per-byte cost '") + bad + "'");
    expectInvalid([bad] { parseSecondsPerByte(bad); }, "");
  }
}

// Every quantity a formatter prints, read back by the parser of its unit.
double parseBack(const std::string& number, const std::string& unit) {
  const std::string text = number + " " + unit;
  if (unit.find("/B") != std::string::npos) return parseSecondsPerByte(text);
  if (unit.find("/s") != std::string::npos) return parseBandwidth(text);
  return parseSeconds(text);
}

std::vector<std::pair<std::string, std::string>> quantitiesIn(const std::string& text) {
  static const std::regex quantity(
      R"(([0-9][0-9.e+-]*) ?(ns/B|s/B|GB/s|MB/s|Gb/s|GiB/s|ns|us|ms|s)\b)");
  std::vector<std::pair<std::string, std::string>> found;
  for (std::sregex_iterator it(text.begin(), text.end(), quantity), end; it != end; ++it)
    found.emplace_back((*it)[1], (*it)[2]);
  return found;
}

TEST(Units, WhatTheFormattersPrintIsReadBack) {
  for (const double s : {0.0, 3.25e-6, 12.5e-6, 1.25e-3, 2.0}) {
    expectClose(parseSeconds(formatMicros(s)), s, 1e-12, formatMicros(s));
  }
  model::Profile profile = model::defaultProfile();
  profile.params.link.alpha_s = 2e-6;
  profile.params.link.beta_s_per_byte = 0.08e-9;  // 12.5 GB/s
  profile.params.reduce.gamma_s_per_byte = 0.2e-9;
  const std::string described = model::describeModel(profile);
  const auto found = quantitiesIn(described);
  ASSERT_GE(found.size(), 4u) << described;
  const std::vector<double> want = {2e-6, 0.08e-9, 12.5e9, 0.2e-9};
  for (std::size_t i = 0; i < want.size(); ++i) {
    expectClose(parseBack(found[i].first, found[i].second), want[i], 1e-3,
                found[i].first + " " + found[i].second);
  }
  // A topology file's bandwidths and latencies, as ringlab writes them, read back.
  const std::string written =
      topo::topologyToJson(topo::generateTopology("nodes=2,ranks=2,intra=100GB/s,inter=25GB/s"));
  const auto links = quantitiesIn(written);
  ASSERT_FALSE(links.empty()) << written;
  for (const auto& [number, unit] : links)
    EXPECT_NO_THROW(parseBack(number, unit)) << number << unit;
  const topo::Topology back = topo::parseTopologyJson(written, "written.json");
  EXPECT_EQ(topo::topologyToJson(back), written);
}

}  // namespace
}  // namespace ringlab
