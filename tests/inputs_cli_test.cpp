// Inputs bounded before they are read (issue 20): the real binary as a child process, under a
// 512 MiB address-space limit where memory is the point, so that a command that would read or
// build gigabytes fails ("out of memory", or killed at the timeout) instead of passing. Each bad
// input must exit non-zero with one "ringlab: error:" line naming the path or field, its value
// and what is valid.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "run_ringlab.hpp"

#ifndef RINGLAB_TEST_DATA
#error "RINGLAB_TEST_DATA must be defined as the path of tests/data"
#endif

namespace {

using ringlab::test::CliResult;

constexpr unsigned kAddressSpaceMiB = 512;

CliResult ringlab(const std::vector<std::string>& args) {
  return ringlab::test::runRinglab(args, 60, kAddressSpaceMiB);
}

std::string data(const std::string& name) {
  return std::string(RINGLAB_TEST_DATA) + "/" + name;
}

std::string tempPath(const std::string& name) {
  return ::testing::TempDir() + std::to_string(getpid()) + "_inputs_" + name;
}

std::string tempFile(const std::string& name, const std::string& text) {
  const std::string path = tempPath(name);
  std::ofstream(path) << text;
  return path;
}

// A file of `bytes` zero bytes that takes no disk (a hole).
std::string sparseFile(const std::string& name, off_t bytes) {
  const std::string path = tempPath(name);
  std::ofstream(path).close();
  EXPECT_EQ(truncate(path.c_str(), bytes), 0);
  return path;
}

// One error line holding every part.
void expectError(const std::vector<std::string>& args, std::initializer_list<std::string> parts) {
  const CliResult r = ringlab(args);
  std::string command = "ringlab";
  for (const std::string& a : args) command += " '" + a + "'";
  EXPECT_NE(r.status, 0) << command << "\n" << r.out;
  EXPECT_LT(r.status, 128) << command << ": killed (timeout or signal)";
  EXPECT_EQ(r.err.rfind("ringlab: error: ", 0), 0u) << command << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << command << "\n" << r.err;
  for (const std::string& part : parts)
    EXPECT_NE(r.err.find(part), std::string::npos) << command << ": no '" << part << "' in\n"
                                                   << r.err;
}

const std::string kTimeline = data("plan_timeline.csv");

// ---------------------------------------------------------------------------------------------
// Files: special files, directories, and each format's bound

TEST(InputsCli, SpecialFilesAreNamedNotRead) {
  expectError({"compare", "/dev/zero"},
              {"measurements /dev/zero: not a regular file (a character device)"});
  const std::string fifo = tempPath("fifo");
  ::unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // No writer ever comes: opening it must not wait for one.
  expectError({"compare", fifo}, {fifo + ": not a regular file (a FIFO or pipe)"});
  expectError({"model", "--profile", fifo}, {"profile " + fifo + ": not a regular file"});
  expectError({"plan", "--timeline", fifo}, {"timeline " + fifo + ": not a regular file"});
  expectError({"topo", "show", "--topo-file", fifo},
              {"--topo-file " + fifo + ": not a regular file"});
  ::unlink(fifo.c_str());
  const std::string dir = ::testing::TempDir();
  expectError({"model", "--profile", dir}, {"profile " + dir + ": is a directory"});
  expectError({"plan", "--timeline", dir}, {"timeline " + dir + ": is a directory"});
  expectError({"topo", "show", "--topo-file", dir}, {"--topo-file " + dir + ": is a directory"});
}

TEST(InputsCli, AFileOverItsFormatsBoundIsRefusedBeforeItIsRead) {
  const std::string profile = sparseFile("big_profile.json", 2 << 20);
  expectError({"model", "--profile", profile},
              {"profile " + profile + ": larger than 1 MiB, the limit for a profile"});
  const std::string record = sparseFile("big_record.json", off_t{3} << 30);
  expectError({"compare", record}, {"larger than 64 MiB, the limit for a measurement file"});
  const std::string timeline = sparseFile("big_timeline.csv", off_t{3} << 30);
  expectError({"plan", "--timeline", timeline}, {"larger than 64 MiB, the limit for a timeline"});
  const std::string topology = sparseFile("big_topology.json", off_t{3} << 30);
  expectError({"topo", "show", "--topo-file", topology},
              {"larger than 64 MiB, the limit for a topology file"});
  for (const std::string& path : {profile, record, timeline, topology}) ::unlink(path.c_str());
}

// ---------------------------------------------------------------------------------------------
// Fields: each within its range, read before it is narrowed

std::string benchJson(const std::string& p, const std::string& size, const std::string& time) {
  const auto row = [](const std::string& bytes, const std::string& us) {
    return R"({"size_bytes": )" + bytes + R"(, "in_place": {"time_us": )" + us +
           R"(}, "out_of_place": {"time_us": )" + us + "}}";
  };
  return R"({"run": {"p": )" + p +
         R"(, "dtype": "float32", "op": "sum", "algorithm": "ring"}, "rows": [)" + row(size, time) +
         ", " + row("65536", "800") + "]}";
}

TEST(InputsCli, RecordFieldsOutOfRangeAreNamedWithTheirRange) {
  struct Case {
    std::string p, size, time, message;
  };
  const std::vector<Case> cases = {
      {"1000000000000", "4", "250", "run.p = 1000000000000: must be a whole number in 1..1048576"},
      {"4294967298", "4", "250", "run.p = 4294967298: must be a whole number in 1..1048576"},
      {"-3", "4", "250", "run.p = -3: must be a whole number in 1..1048576"},
      {"2", "-8", "250", "row 0: size_bytes = -8: must be a whole number in 0..9007199254740992"},
      {"2", "1e300", "250", "row 0: size_bytes = 1e+300: must be a whole number in 0.."},
      {"2", "4", "0", "row 0: out_of_place.time_us = 0: must be a number > 0 and <= 1000000000000"},
      {"2", "4", "-5", "row 0: out_of_place.time_us = -5: must be a number > 0"},
      {"2", "4", "1e308", "row 0: out_of_place.time_us = 1e+308: must be a number > 0"},
  };
  for (const Case& c : cases) {
    const std::string path = tempFile("record.json", benchJson(c.p, c.size, c.time));
    expectError({"compare", path}, {"measurements " + path + ": " + c.message});
  }
}

TEST(InputsCli, ProfileCoefficientsOutOfRangeAreNamedWithTheirRange) {
  std::ifstream in(data("plan_profile_p2.json"));
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return tempFile("profile.json", text);
  };
  std::string path = with("\"alpha_s\": 3e-05", "\"alpha_s\": 1e308");
  expectError({"model", "--profile", path},
              {"profile " + path + ": alpha_s = 1e+308: must be in 0..1 s"});
  path = with("\"beta_s_per_byte\": 1e-09", "\"beta_s_per_byte\": 5");
  expectError({"model", "--profile", path}, {"beta_s_per_byte = 5: must be in 1e-15..0.001 s/B"});
  path = with("\"ranks\": 2", "\"ranks\": 4294967298");
  expectError({"plan", "--timeline", kTimeline, "--profile", path, "-p", "2"},
              {"profile " + path + ": ranks = 4294967298: must be a whole number in 1..1048576"});
  // The flags that override a profile take the same ranges.
  expectError({"model", "--alpha", "1e300s"},
              {"--alpha 1e300s: alpha_s = 1e+300: must be in 0..1"});
  expectError({"model", "--bw", "1e-300GB/s"}, {"--bw 1e-300GB/s: beta_s_per_byte = "});
  expectError({"model", "--gamma", "1e300ns/B"}, {"--gamma 1e300ns/B: gamma_s_per_byte = "});
}

TEST(InputsCli, LinksIsARowCount) {
  expectError({"sim", "--topo", "nodes=2,ranks=2", "-b", "1M", "-e", "1M", "--links", "-5"},
              {"--links", "-5", "must be a whole number in 0..1048576"});
  expectError({"topo", "show", "--topo", "nodes=2,ranks=2", "--links", "-5"},
              {"--links", "-5", "must be a whole number in 0..1048576"});
}

TEST(InputsCli, EmptyValuesAreRefusedNotTakenAsNotGiven) {
  const std::vector<std::vector<std::string>> commands = {
      {"model", "--json", ""},
      {"verify", "-p", "4", "--algo", ""},
      {"compare", data("plan_measured_p2.json"), "--svg", ""},
      {"model", "--profile", ""},
      {"verify", "-p", "4", "--ring-order", ""},
      {"sim", "--topo", "nodes=2,ranks=2", "--json", ""},
      {"plan", "--timeline", ""},
      {"compare", ""},
      {"topo", "show", "--topo", ""},
  };
  for (const auto& args : commands) expectError(args, {"an empty value; give one"});
}

// ---------------------------------------------------------------------------------------------
// Shapes: refused by estimate before they are built, or built within bounds

TEST(InputsCli, ATopologyTooLargeIsRefusedByItsEstimate) {
  for (const char* command : {"show", "search"}) {
    expectError({"topo", command, "--topo", "nodes=1048576,ranks=16"},
                {"--topo nodes=1048576,ranks=16: 16777216 slots",
                 "GiB, over the 1 GiB a topology "
                 "may take"});
  }
  expectError({"sim", "--topo", "nodes=1048576,ranks=16", "-b", "1M", "-e", "1M"},
              {"16777216 slots", "over the 1 GiB"});
  // A fat tree's spine links count too: 65536 groups x 65536 spines.
  expectError({"topo", "show", "--topo", "nodes=65536,shape=fat-tree,leaf=1,spines=65536"},
              {"over the 1 GiB"});
}

TEST(InputsCli, ManyCopiesOfAnNcclNodeAreRefusedByTheTopologyEstimate) {
  // 1048576 copies of a 2-GPU node ran out of memory after 16 s instead of asking the estimate.
  const std::string xml = data("nccl_topo/azure_ndv2-topo.xml");
  for (const char* command : {"show", "search"}) {
    expectError({"topo", command, "--nccl-topo", xml, "--nccl-nodes", "1048576"},
                {"1048576 nodes of 8 GPUs", "GiB, over the 1 GiB a topology may take"});
  }
}

TEST(InputsCli, BenchRefusesRanksThatCannotFitWithTheFigure) {
  // p = 1024 over threads grew with p^2 (18 GiB); now it is estimated first and refused here.
  expectError({"bench", "--transport", "inproc", "-p", "1024", "-b", "8", "-e", "1K"},
              {"p = 1024 ranks with two buffers of the largest size, 1 KiB",
               "GiB, over this process's address-space limit of 0.5 GiB"});
  expectError({"bench", "--transport", "inproc", "-p", "4", "-e", "64G"},
              {"about 512.0 GiB, over"});
}

TEST(InputsCli, BenchRanksWithoutMemoryForTheirThreadsEndInAnError) {
  // Within the estimate, but each thread's stack and heap reserve address space: under the limit
  // the threads cannot all start, which ended in "terminate called" (status 134).
  expectError({"bench", "--transport", "inproc", "-p", "128", "-b", "8", "-e", "8", "-n", "1"},
              {"could not start a thread for rank", "of 128"});
}

TEST(InputsCli, RingSearchAtLargePStaysWithinMemory) {
  // p = 16384: deriving every ring of the rule (phi(p) = 8192 of p ranks each) took 1 GiB.
  const CliResult r = ringlab({"topo", "search", "--topo", "nodes=2048,ranks=8"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("  p 16384  "), std::string::npos) << r.out.substr(0, 400);
}

}  // namespace
