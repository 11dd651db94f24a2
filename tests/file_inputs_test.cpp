// Files that once crashed a reader or were believed: each format's values held to their stated
// ranges (docs/reliability.md, "Inputs: limits and plausibility"), deep nesting bounded, and text
// from a file kept from reaching the terminal raw.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "expect_error.hpp"
#include "ringlab/bootstrap/rendezvous.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/core/json_text.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/model/decision_table.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/plan/chrome_trace.hpp"
#include "ringlab/plan/timeline_format.hpp"
#include "ringlab/record/run_logs.hpp"
#include "ringlab/topo/file_format.hpp"
#include "ringlab/topo/nccl_xml.hpp"

namespace ringlab {
namespace {

using test::expectInvalid;

const std::string kData = RINGLAB_TEST_DATA;

std::string dataText(const std::string& name) {
  return readTextFile(kData + "/" + name, "test data");
}

// The text with its first `from` replaced by `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

bool holdsEscape(const std::string& text) {
  return text.find('\x1b') != std::string::npos || text.find('\x07') != std::string::npos;
}

// ---- NCCL topology XML --------------------------------------------------------------------

const std::string kH200 = "nccl_topo/hgx_h200_dump.xml";

topo::NcclImport importXml(const std::string& text) {
  return topo::importNcclTopology(text, "t.xml", 1, 2e-6, {});
}

// 110,000 nested elements crashed topo show and sim (recursion in the reader's walks and in the
// tree's destruction): now refused at depth 64, at once.
TEST(FileInputs, NcclXmlNestedTooDeepIsRefusedNotACrash) {
  std::string deep = "<system version=\"1\">";
  for (int i = 0; i < 110000; ++i) deep += "<pci busid=\"0\">";
  for (int i = 0; i < 110000; ++i) deep += "</pci>";
  deep += "</system>";
  expectInvalid([&] { importXml(deep); }, {"t.xml", "nested deeper than 64 levels"});
  // 60 levels, deeper than any real file, still parse to the next question (no GPU).
  std::string fine = "<system version=\"1\">";
  for (int i = 0; i < 60; ++i) fine += "<pci busid=\"0\">";
  for (int i = 0; i < 60; ++i) fine += "</pci>";
  expectInvalid([&] { importXml(fine + "</system>"); }, "no GPU");
}

TEST(FileInputs, NcclXmlValuesOutOfRangeAreNamedWithTheirRange) {
  const std::string xml = dataText(kH200);
  ASSERT_NO_THROW(importXml(xml));
  const std::string digits300(300, '9');
  const struct {
    std::string from, to, message;
  } cases[] = {
      {"sm=\"90\"", "sm=\"-1\"", "<gpu> sm '-1': must be a whole number in 0..10000"},
      {"speed=\"10000\"", "speed=\"-100\"", "<net> speed '-100': must be a number in 0..1e+09"},
      {"speed=\"10000\"", "speed=\"" + digits300 + "\"", "<net> speed '9999999999"},
      {"count=\"5\"", "count=\"400000000\"",
       "<nvlink> count '400000000': must be a whole number in 1..64"},
      {"count=\"5\"", "count=\"-4\"", "<nvlink> count '-4': must be a whole number in 1..64"},
      {"count=\"5\"", "count=\"2.5\"", "<nvlink> count '2.5'"},
      {"link_width=\"16\"", "link_width=\"99\"",
       "link_width '99': must be a whole number in 0..32"},
      {"dev=\"0\"", "dev=\"1e300\"", "dev '1e300'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.to);
    expectInvalid([&] { importXml(replaced(xml, c.from, c.to)); }, {"t.xml", c.message});
  }
  // A 300-digit value is shown cut, on one short line.
  const Error e = test::errorOf(
      [&] { importXml(replaced(xml, "speed=\"10000\"", "speed=\"" + digits300 + "\"")); });
  EXPECT_LT(std::string(e.what()).size(), 200u) << e.what();
}

// A GPU listing more links than any GPU has (each element within range) is refused too.
TEST(FileInputs, NcclXmlLinksPerGpuAreBounded) {
  std::string xml = dataText(kH200);
  std::string many;
  for (int i = 0; i < 5; ++i)
    many += "<nvlink target=\"0000:c5:00.0\" count=\"18\" tclass=\"0x068000\"/>";
  xml = replaced(xml, "<nvlink target=\"0000:c5:00.0\" count=\"5\" tclass=\"0x068000\"/>", many);
  expectInvalid([&] { importXml(xml); }, {"t.xml", "NVLink/xGMI links: a GPU has at most 64"});
}

// ---- Terminal safety: file text under the peer-text rule ------------------------------------

TEST(FileInputs, EscapesInANcclXmlNetNameReachNoTerminal) {
  const std::string xml =
      replaced(dataText(kH200), "name=\"eth0\"", "name=\"eth\x1b]0;owned\x07\x1b[2J\"");
  const topo::NcclImport imported = importXml(xml);
  bool sawNic = false;
  for (const topo::Vertex& v : imported.topology.vertices()) {
    EXPECT_FALSE(holdsEscape(v.name)) << printableText(v.name);
    if (v.name.find("eth\\x1b]0;owned\\x07") != std::string::npos) sawNic = true;
  }
  EXPECT_TRUE(sawNic) << "the NIC keeps its name, escaped";
}

// Found by the fuzzer: a line end inside an attribute reached an error as a second line. XML reads
// it as a blank; a lone carriage return in a text file is escaped.
TEST(FileInputs, NoFileTextStartsASecondLineOrReturnsTheCursor) {
  const Error e = test::errorOf(
      [] { importXml(replaced(dataText(kH200), "version=\"1\"", "version=\"1\n2\"")); });
  EXPECT_NE(std::string(e.what()).find("version 1 2"), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  EXPECT_EQ(printableLines("a\rb\r\nc\td\n"), "a\\x0db\r\nc\td\n");
}

TEST(FileInputs, EscapesInANcclTestsDeviceNameReachNoTerminal) {
  const std::string log = dataText("nccl_tests/h100_16ranks_mpirun.log");
  const std::size_t rank = log.find("#  Rank  0");
  ASSERT_NE(rank, std::string::npos);
  const std::size_t bracket = log.find(']', rank);
  std::string hostile = log;
  hostile.insert(bracket + 1, " \x1b]2;pwned\x07\x1b[2J\x9b");
  const std::vector<record::LoggedRun> runs = record::parseRuns(hostile, "h.log", {});
  ASSERT_FALSE(runs.empty());
  EXPECT_FALSE(holdsEscape(runs[0].device)) << printableText(runs[0].device);
  EXPECT_EQ(runs[0].device.find('\x9b'), std::string::npos);
  EXPECT_NE(runs[0].device.find("\\x1b]2;pwned\\x07"), std::string::npos) << runs[0].device;
}

TEST(FileInputs, EscapesInJsonStringsAreEscapedAndInKeysRefused) {
  const nlohmann::json j = parseJsonText(R"({"name": "a\u001b[2Jb\u0007"})", "f.json");
  EXPECT_EQ(j["name"], "a\\x1b[2Jb\\x07");
  expectInvalid([] { parseJsonText(R"({"a\u001b[2J": 1})", "f.json"); },
                {"f.json", "a key holds a control character ('a\\x1b[2J')"});
  // Topology node names come through the same reader.
  const topo::Topology t = topo::parseTopologyJson(
      R"({"ringlab_topology": 1, "nodes": [{"name": "n\u001b[31m", "slots": 2,
          "intra": {"bandwidth": "10GB/s"}}]})",
      "t.json");
  for (const topo::Vertex& v : t.vertices()) EXPECT_FALSE(holdsEscape(v.name)) << v.name;
}

TEST(FileInputs, JsonNestedTooDeepIsRefused) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  expectInvalid([&] { parseJsonText(deep, "d.json"); }, {"d.json", "nested deeper than 64 levels"});
  expectInvalid([&] { record::parseRuns("{\"run\": " + deep + "}", "r.json", {}); },
                "nested deeper than 64 levels");
}

// ---- Records and logs -----------------------------------------------------------------------

const std::string kRecord = R"({"run": {"p": 2, "dtype": "float32"}, "rows": [
    {"size_bytes": 1024, "count": 256, "dtype": "float32", "out_of_place": {"time_us": 10}}]})";

TEST(FileInputs, RecordNonsenseIsRefused) {
  ASSERT_NO_THROW(record::parseRuns(kRecord, "r.json", {}));
  expectInvalid([] { record::parseRuns(R"({"run": {"p": 2}, "rows": []})", "r.json", {}); },
                {"r.json", "no rows"});
  expectInvalid(
      [] {
        record::parseRuns(replaced(kRecord, "\"time_us\": 10", "\"time_us\": \"fast\""), "r.json",
                          {});
      },
      {"r.json", "out_of_place.time_us = \"fast\": must be a number > 0"});
  expectInvalid(
      [] {
        record::parseRuns(replaced(kRecord, "\"count\": 256", "\"count\": \"256\""), "r.json", {});
      },
      {"r.json", "count = \"256\": must be a whole number"});
  expectInvalid(
      [] {
        record::parseRuns(replaced(kRecord, "\"count\": 256", "\"count\": 100"), "r.json", {});
      },
      {"r.json", "count = 100: 100 elements of float32 (4 B each) are not 1024 bytes"});
  expectInvalid(
      [] {
        record::parseRuns(
            replaced(kRecord, "{\"time_us\": 10}", "{\"time_us\": 10, \"min_us\": -1}"), "r.json",
            {});
      },
      {"r.json", "min_us = -1"});
}

TEST(FileInputs, AGivenPIsHeldToTheOneRankLimit) {
  expectInvalid([] { record::parseRuns(kRecord, "r.json", {.ranks = 99999999}); },
                {"-p 99999999", "must be in 1..1048576"});
  expectInvalid([] { record::parseRuns(kRecord, "r.json", {.ranks = 0}); }, "1..1048576");
}

// A launched rank's world size is held to the same limit as every p a file states.
TEST(FileInputs, TheWorldSizeIsHeldToTheOneRankLimit) {
  const char* names[] = {"RINGLAB_RANK", "RINGLAB_WORLD_SIZE", "RINGLAB_RENDEZVOUS"};
  std::map<std::string, std::string> saved;
  for (const char* name : names)
    if (const char* v = std::getenv(name)) saved[name] = v;
  ::setenv("RINGLAB_RANK", "0", 1);
  ::setenv("RINGLAB_RENDEZVOUS", "tcp://127.0.0.1:29500", 1);
  ::setenv("RINGLAB_WORLD_SIZE", "70000", 1);  // above the old 65536
  const auto env = bootstrap::rankEnvironmentFromEnv();
  ASSERT_TRUE(env.has_value());
  EXPECT_EQ(env->size, 70000);
  ::setenv("RINGLAB_WORLD_SIZE", "1048577", 1);
  expectInvalid([] { bootstrap::rankEnvironmentFromEnv(); }, {"RINGLAB_WORLD_SIZE", "1048576"});
  for (const char* name : names) ::unsetenv(name);
  for (const auto& [name, value] : saved) ::setenv(name.c_str(), value.c_str(), 1);
}

// The first row of a real log with its out-of-place time replaced.
std::string ncclLogWithTime(const std::string& time) {
  const std::string log = dataText("nccl_tests/h100_16ranks_mpirun.log");
  const std::vector<std::string> lines = splitList(log, '\n');
  for (const std::string& line : lines) {
    const std::vector<std::string> w = splitList(line, ' ');
    if (line.find("float") == std::string::npos || line.find("sum") == std::string::npos ||
        line[0] == '#')
      continue;
    // size count type redop root time ...: the sixth word is the time.
    std::vector<std::string> words;
    for (const std::string& x : w)
      if (!x.empty()) words.push_back(x);
    return replaced(log, line, replaced(line, " " + words[5] + " ", " " + time + " "));
  }
  ADD_FAILURE() << "no row";
  return log;
}

TEST(FileInputs, NcclTestsRowTimesOutOfRangeAreRefused) {
  ASSERT_NO_THROW(record::parseRuns(ncclLogWithTime("12.34"), "n.log", {}));
  for (const char* time : {"0", "0.00", "-5", "1e300"}) {
    SCOPED_TRACE(time);
    expectInvalid([&] { record::parseRuns(ncclLogWithTime(time), "n.log", {}); },
                  {"n.log", std::string("out-of-place time = "), "must be > 0 and <= 1e+12"});
  }
}

TEST(FileInputs, OsuRowTimesOutOfRangeAreRefused) {
  const std::string osu = dataText("osu/allreduce_v7.5_int_oci.log");
  for (const char* time : {"0.00", "-5.00", "1e300"}) {
    SCOPED_TRACE(time);
    // The first row's average latency, whatever it is, replaced.
    const std::size_t row = osu.find("\n4 ");
    ASSERT_NE(row, std::string::npos);
    const std::size_t start = osu.find_first_not_of(' ', row + 3);
    const std::size_t end = osu.find_first_of(" \n", start);
    std::string bad = osu;
    bad.replace(start, end - start, time);
    expectInvalid([&] { record::parseRuns(bad, "o.log", {.ranks = 144}); },
                  {"o.log", "out_of_place.time_us = ", "must be a number > 0"});
  }
}

// ---- Profiles and decision tables -----------------------------------------------------------

TEST(FileInputs, ProfileJobRanksZeroIsRefused) {
  nlohmann::json j = parseJsonText(dataText("profile_tcp_p2.json"), "p.json");
  ASSERT_NO_THROW(model::profileFromJson(j, "p.json"));
  for (const nlohmann::json& bad : {nlohmann::json(0), nlohmann::json(-3), nlohmann::json(2.5),
                                    nlohmann::json("4"), nlohmann::json(1e12)}) {
    j["job_ranks"] = bad;
    expectInvalid([&] { model::profileFromJson(j, "p.json"); },
                  {"p.json", "job_ranks = ", "must be a whole number in 1..1048576"});
  }
}

TEST(FileInputs, DecisionTableOfATypeRinglabDoesNotRunIsRefused) {
  nlohmann::json j = parseJsonText(dataText("tune_table_p4.json"), "d.json");
  ASSERT_NO_THROW(model::decisionTableFromJson(j, "d.json"));
  j["dtype"] = "float128";
  expectInvalid([&] { model::decisionTableFromJson(j, "d.json"); },
                {"d.json", "dtype", "float128"});
  j["dtype"] = "float32";
  j["measured"][0]["rounds_us"]["ring"][1] = -2;
  expectInvalid([&] { model::decisionTableFromJson(j, "d.json"); },
                {"d.json", "-2", "must be > 0"});
  j = parseJsonText(dataText("tune_table_p4.json"), "d.json");
  j["measured"][0]["margin"]["ratio"] = 1e300;
  expectInvalid([&] { model::decisionTableFromJson(j, "d.json"); },
                {"d.json", "margin.ratio = 1e+300"});
}

// ---- Timelines --------------------------------------------------------------------------------

TEST(FileInputs, TimelineValuesOutOfRangeAreRefused) {
  const std::string timeline = dataText("plan_timeline.json");
  ASSERT_NO_THROW(plan::parseTimeline(timeline, "t.json"));
  nlohmann::json j = parseJsonText(timeline, "t.json");
  j["forward_us"] = 1e300;
  expectInvalid([&] { plan::parseTimeline(j.dump(), "t.json"); },
                {"t.json", "forward_us = 1e+300: must be in 0..1e+12"});
  j = parseJsonText(timeline, "t.json");
  for (std::size_t i = 0; i < j["tensors"].size(); ++i) j["tensors"][i]["param_index"] = i;
  ASSERT_NO_THROW(plan::parseTimeline(j.dump(), "t.json"));
  j["tensors"][0]["param_index"] = 1000000;
  expectInvalid([&] { plan::parseTimeline(j.dump(), "t.json"); },
                {"t.json", "param_index 1000000: must be in 0.."});
  j = parseJsonText(timeline, "t.json");
  j["tensors"][0]["ready_us"] = "soon";
  expectInvalid([&] { plan::parseTimeline(j.dump(), "t.json"); },
                {"t.json", "ready_us = \"soon\""});
}

// Found by the fuzzer: a trace event whose "ph" is a number threw nlohmann's type error.
TEST(FileInputs, TraceEventFieldsOfAnotherTypeAreNotTimelineEvents) {
  EXPECT_TRUE(plan::isTimelineEvent(
      nlohmann::json{{"ph", "X"}, {"name", "torch::autograd::AccumulateGrad"}, {"ts", 1}}));
  EXPECT_FALSE(plan::isTimelineEvent(
      nlohmann::json{{"ph", 5}, {"name", "torch::autograd::AccumulateGrad"}, {"ts", 1}}));
}

// ---- Topology files ---------------------------------------------------------------------------

std::string topologyWithIntra(const std::string& intra) {
  return R"({"ringlab_topology": 1, "nodes": [{"name": "n", "slots": 2, "intra": )" + intra + "}]}";
}

TEST(FileInputs, TopologyQuantitiesNeedUnitsAndStayInRange) {
  ASSERT_NO_THROW(
      topo::parseTopologyJson(topologyWithIntra(R"({"bandwidth": "5GB/s"})"), "t.json"));
  expectInvalid([] { topo::parseTopologyJson(topologyWithIntra(R"({"bandwidth": 5})"), "t.json"); },
                {"t.json", "bandwidth", "5: needs its unit, as a string such as \"100GB/s\""});
  expectInvalid(
      [] {
        topo::parseTopologyJson(topologyWithIntra(R"({"bandwidth": "5GB/s", "latency": 2e-6})"),
                                "t.json");
      },
      {"t.json", "latency", "needs its unit"});
  const std::string digits300 = "1" + std::string(299, '0');
  expectInvalid(
      [&] {
        topo::parseTopologyJson(
            topologyWithIntra(R"({"bandwidth": "5GB/s", "latency": ")" + digits300 + R"(us"})"),
            "t.json");
      },
      {"t.json", "latency", "must be in 0..1s"});
  expectInvalid(
      [] { topo::parseTopologyJson(topologyWithIntra(R"({"bandwidth": "1e300GB/s"})"), "t.json"); },
      {"t.json", "must be in 1KB/s..1PB/s"});
}

}  // namespace
}  // namespace ringlab
