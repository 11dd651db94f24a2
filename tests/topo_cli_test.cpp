// `ringlab topo` and `ringlab sim` end to end: the real binary as a child process. Bad input
// must exit non-zero with one "ringlab: error:" line naming the offending element.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_ringlab.hpp"

namespace {

using ringlab::test::CliResult;
using ringlab::test::slurpFile;

CliResult ringlab(std::vector<std::string> args) {
  return ringlab::test::runRinglab(std::move(args));
}

std::string tempFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + std::to_string(getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

// One error line that names every part.
void expectError(const std::vector<std::string>& args, std::initializer_list<std::string> parts) {
  const CliResult r = ringlab(args);
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_EQ(r.err.rfind("ringlab: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const std::string& part : parts) EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
}

TEST(TopoCli, ShowComparesRankOrderWithTheSearchedOrder) {
  const CliResult r = ringlab({"topo", "show", "--topo", "nodes=2,ranks=2,inter=400Mbit/s",
                               "--placement", "rr", "--size", "16M"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("placement round-robin (n0: 0,2  n1: 1,3)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank order"), std::string::npos);
  EXPECT_NE(r.out.find("2.00x faster than rank order"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("link-hop bytes"), std::string::npos);
  EXPECT_NE(r.out.find("n0.nic0->switch"), std::string::npos);
}

TEST(TopoCli, SearchExportsEveryFormat) {
  const std::vector<std::string> base = {"topo",        "search", "--topo",  "nodes=2,ranks=2",
                                         "--placement", "rr",     "--export"};
  auto with = [&](const std::string& kind) {
    std::vector<std::string> args = base;
    args.push_back(kind);
    return ringlab(args);
  };
  const std::string order =
      with("ring-order").out;  // either way round: each node's ranks side by side
  EXPECT_TRUE(order == "0,2,1,3\n" || order == "0,2,3,1\n") << order;
  EXPECT_NE(with("rankfile").out.find("rank 1=n0 slot=1\n"), std::string::npos);
  EXPECT_NE(with("machinefile").out.find("n0:1\nn0:1\nn1:1\nn1:1\n"), std::string::npos);
  EXPECT_NE(with("nccl-graph").out.find("<graphs version=\"1\">"), std::string::npos);
  expectError({"topo", "search", "--topo", "nodes=2", "--export", "svg"}, {"--export svg"});
}

// The rankfile and machinefile name the user's hosts: --hosts NODE=HOST,... or a hostfile (Open
// MPI's "HOST slots=N" and MPICH's "HOST:N" lines, given to the nodes in order).
TEST(TopoCli, ExportsMapNodesToHosts) {
  const std::vector<std::string> base = {"topo",        "search", "--topo",  "nodes=2,ranks=2",
                                         "--placement", "block",  "--order", "0,2,1,3"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return ringlab(args);
  };
  const CliResult listed = with({"--export", "rankfile", "--hosts", "n0=node01,n1=node02"});
  ASSERT_EQ(listed.status, 0) << listed.err;
  EXPECT_NE(listed.out.find("rank 0=node01 slot=0\nrank 1=node02 slot=0\nrank 2=node01 slot=1\n"
                            "rank 3=node02 slot=1\n"),
            std::string::npos)
      << listed.out;
  const std::string hosts =
      tempFile("hosts", "# ours\nnode01 slots=2 max_slots=4\n\nnode02:2  # MPICH's form\n");
  const CliResult fromFile = with({"--export", "machinefile", "--hostfile", hosts});
  ASSERT_EQ(fromFile.status, 0) << fromFile.err;
  EXPECT_NE(fromFile.out.find("node01:1\nnode02:1\nnode01:1\nnode02:1\n"), std::string::npos)
      << fromFile.out;

  expectError({"topo", "search", "--topo", "nodes=2,ranks=2", "--export", "rankfile", "--hosts",
               "n0=a,n7=b"},
              {"--hosts n7=b", "no node n7", "its nodes: n0, n1"});
  expectError(
      {"topo", "search", "--topo", "nodes=2,ranks=2", "--export", "rankfile", "--hosts", "n0=a"},
      {"no host for topology node n1", "(it holds ranks", "--hosts n1=HOST"});
  expectError(
      {"topo", "search", "--topo", "nodes=2,ranks=2", "--export", "rankfile", "--hosts", "n0"},
      {"--hosts 'n0'", "NODE=HOST"});
  expectError({"topo", "search", "--topo", "nodes=2,ranks=2", "--export", "rankfile", "--hostfile",
               tempFile("small", "a slots=1\nb\n")},
              {"host a", "slots=1", "2 ranks"});
  expectError({"topo", "search", "--topo", "nodes=2,ranks=2", "--export", "rankfile", "--hostfile",
               tempFile("three", "a\nb\nc\n")},
              {"line 3", "host c", "2 nodes"});
  expectError({"topo", "search", "--topo", "nodes=2,ranks=2", "--export", "rankfile", "--hostfile",
               tempFile("bad", "a slots=two\n")},
              {"line 1", "'a slots=two'", "HOST slots=N"});
  expectError({"topo", "search", "--topo", "nodes=2,ranks=2", "--export", "ring-order", "--hosts",
               "n0=a,n1=b"},
              {"--hosts", "rankfile or machinefile"});
}

// --order gives k rings ('|' between them): priced and shown as k channels, with rank order as
// the k rings multi_ring derives; --channels, if also given, must agree.
TEST(TopoCli, OrderGivesKRingsAndChannelsMustAgree) {
  const std::vector<std::string> base = {"topo",        "show", "--topo", "nodes=2,ranks=2",
                                         "--placement", "rr",   "--size", "16M"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return ringlab(args);
  };
  for (const auto& extra :
       {std::vector<std::string>{"--order", "0,1,2,3|0,2,1,3"},
        std::vector<std::string>{"--order", "0,1,2,3|0,2,1,3", "--channels", "2"}}) {
    const CliResult r = with(extra);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("p 4  channels 2\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("0,1,2,3 | 0,3,2,1"), std::string::npos) << r.out;  // rank order, k = 2
    EXPECT_NE(r.out.find("0,1,2,3 | 0,2,1,3"), std::string::npos) << r.out;  // given
  }
  const CliResult json = with({"--order", "0,1,2,3|0,2,1,3", "--json", "-"});
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_NE(json.out.find("\"method\": \"given by --order\""), std::string::npos) << json.out;
  std::vector<std::string> search = base;
  search[1] = "search";
  for (const char* arg : {"--order", "0,1,2,3|0,2,1,3", "--export", "ring-order"})
    search.push_back(arg);
  EXPECT_EQ(ringlab(search).out, "0,1,2,3\n0,2,1,3\n");
  const std::vector<std::string> mismatch = {"--channels 2 with --order '0,1,2,3' of 1 ring",
                                             "separated by '|'"};
  std::vector<std::string> args = base;
  for (const char* arg : {"--channels", "2", "--order", "0,1,2,3"}) args.push_back(arg);
  expectError(args, {mismatch[0], mismatch[1]});
  args[1] = "search";
  expectError(args, {mismatch[0]});
  args = base;
  for (const char* arg : {"--channels", "3", "--order", "0,1,2,3|0,2,1,3"}) args.push_back(arg);
  expectError(args, {"--channels 3 with --order '0,1,2,3|0,2,1,3' of 2 rings"});
}

TEST(TopoCli, ExampleFilesLoad) {
  for (const char* name : {"two_level_2x2.json", "rail_fat_tree_4x8.json", "torus_4x4.json"}) {
    const CliResult r = ringlab({"topo", "show", "--topo-file",
                                 std::string(RINGLAB_EXAMPLES) + "/" + name, "--links", "3"});
    EXPECT_EQ(r.status, 0) << name << ": " << r.err;
  }
}

TEST(TopoCli, BadInputNamesTheElement) {
  expectError({"topo", "show", "--topo", "nodes=2,gpus=8"}, {"unknown key 'gpus'"});
  expectError({"topo", "show", "--topo", "nodes=2,ranks=2", "-p", "5"}, {"5 ranks", "4 slots"});
  expectError(
      {"topo", "show", "--topo", "nodes=2,ranks=2", "--placement", "n0,n0,n0,n1", "-p", "4"},
      {"rank 2", "'n0'", "2 slots"});
  expectError({"topo", "show", "--topo-file", "/nonexistent/t.json"}, {"/nonexistent/t.json"});
  const std::string unknownField = tempFile("unknown.json", R"({"ringlab_topology": 1, "nodes": [
      {"name": "a", "slots": 1, "intra": {"bandwidth": "1GB/s", "colour": "red"}}]})");
  expectError({"topo", "show", "--topo-file", unknownField},
              {"node 'a' intra", "unknown field 'colour'"});
  const std::string noSuchNode = tempFile("nonode.json", R"({"ringlab_topology": 1, "nodes": [
      {"name": "a", "slots": 1, "intra": {"bandwidth": "1GB/s"}, "nics": [{"name": "a.eth", "bandwidth": "1GB/s"}]}],
      "switches": ["sw"], "links": [{"between": ["a.eth", "sw"], "bandwidth": "1GB/s"},
      {"between": ["z.eth", "sw"], "bandwidth": "1GB/s"}]})");
  expectError({"topo", "show", "--topo-file", noSuchNode},
              {"links[1]", "no element named 'z.eth'"});
  const std::string zero = tempFile("zero.json", R"({"ringlab_topology": 1, "nodes": [
      {"name": "a", "slots": 1, "intra": {"bandwidth": "0GB/s"}}]})");
  expectError({"topo", "show", "--topo-file", zero}, {"node 'a' intra", "must be > 0"});
  const std::string disconnected = tempFile("split.json", R"({"ringlab_topology": 1, "nodes": [
      {"name": "a", "slots": 1, "intra": {"bandwidth": "1GB/s"}, "nics": [{"name": "a.eth", "bandwidth": "1GB/s"}]},
      {"name": "b", "slots": 1, "intra": {"bandwidth": "1GB/s"}, "nics": [{"name": "b.eth", "bandwidth": "1GB/s"}]}],
      "switches": ["sw1", "sw2"], "links": [{"between": ["a.eth", "sw1"], "bandwidth": "1GB/s"},
      {"between": ["b.eth", "sw2"], "bandwidth": "1GB/s"}]})");
  expectError({"topo", "show", "--topo-file", disconnected},
              {"no route between rank 0 (a.s0) and rank 1 (b.s0)"});
}

TEST(TopoCli, ImportsAnNcclTopologyDump) {
  const std::string dump = std::string(RINGLAB_EXAMPLES) + "/nccl_dump_2gpu.xml";
  const CliResult r =
      ringlab({"topo", "show", "--nccl-topo", dump, "--nccl-nodes", "2", "--placement", "rr"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("(2 nodes x 2 slots, 4 NICs, 1 switches"), std::string::npos) << r.out;
  std::ifstream in(dump);
  std::ostringstream text;
  text << in.rdbuf();
  std::string v2 = text.str();
  v2.replace(v2.find("<system version=\"1\">"), 20, "<system version=\"3\">");
  expectError({"topo", "show", "--nccl-topo", tempFile("v3.xml", v2)},
              {"v3.xml", "version 3", "not supported"});
}

// --topo-file reads NCCL's XML as well as ringlab's JSON: a real NCCL_TOPO_FILE of a PCIe box
// whose GPUs list NVLinks to their own bus id, and one that names no GPU class.
TEST(TopoCli, TopoFileReadsNcclTopologyFiles) {
  const std::string data = std::string(RINGLAB_TEST_DATA) + "/nccl_topo/";
  const CliResult r = ringlab({"topo", "search", "--topo-file", data + "azure_ncv4-topo.xml",
                               "--nccl-nodes", "2", "--placement", "rr"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* part : {"4 GPUs sm 80, 1 NIC, 4 sockets (AMD, 16 GB/s between)",
                           "PCIe fabric 12 GB/s per GPU, GPU-NIC 12 GB/s",
                           "48 NVLinks to the GPU's own bus id or to no GPU of the file ignored",
                           "(2 nodes x 4 slots, 2 NICs, 1 switches"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  }
  const CliResult b200 =
      ringlab({"topo", "show", "--topo-file", data + "hgx_b200_dump.xml", "--links", "1"});
  ASSERT_EQ(b200.status, 0) << b200.err;
  EXPECT_NE(b200.out.find("NVSwitch fabric 18 NVLinks x 40.1 GB/s = 721.8 GB/s per GPU"),
            std::string::npos)
      << b200.out;
  expectError({"topo", "show", "--topo-file", data + "aws_g5.48xl-topo.xml"},
              {"aws_g5.48xl-topo.xml", "no GPU", "<pci> without a class"});
}

// What NCCL leaves to the driver is said, and --nccl-links gives it; NVLink pairs price a ring
// over one pair at NVLink speed (sim: 12 x 20 GB/s, algbw 240 at p = 2); RCCL's <xgmi> are read.
TEST(TopoCli, NcclFilesLeavingLinksToTheDriverPairsAndRcclXgmi) {
  const std::string data = std::string(RINGLAB_TEST_DATA) + "/nccl_topo/";
  const std::string a100 = data + "nccl2397_a100pcie_dual_port_dump.xml";
  const CliResult left = ringlab({"topo", "show", "--nccl-topo", a100});
  ASSERT_EQ(left.status, 0) << left.err;
  EXPECT_NE(left.out.find("the file lists no <nvlink> (NCCL asks the driver"), std::string::npos)
      << left.out;
  const CliResult given = ringlab({"topo", "show", "--nccl-topo", a100, "--nccl-links", "12"});
  ASSERT_EQ(given.status, 0) << given.err;
  EXPECT_NE(given.out.find("NVSwitch fabric 12 NVLinks x 20 GB/s = 240 GB/s per GPU"),
            std::string::npos)
      << given.out;
  expectError({"topo", "show", "--nccl-topo", data + "hgx_h200_dump.xml", "--nccl-links", "18"},
              {"hgx_h200_dump.xml", "lists its GPUs' links"});

  const CliResult pair = ringlab({"sim", "--nccl-topo", data + "azure_ncv4_nvlink_pairs-topo.xml",
                                  "-p", "2", "-b", "256M", "-e", "256M"});
  ASSERT_EQ(pair.status, 0) << pair.err;
  EXPECT_NE(pair.out.find("NVLink joins only some GPUs: 0-1 12 NVLinks = 240 GB/s"),
            std::string::npos)
      << pair.out;
  EXPECT_NE(pair.out.find("239.57  239.57"), std::string::npos) << pair.out;

  const CliResult mi300 = ringlab({"topo", "show", "--nccl-topo", data + "rccl_topo_8p_940.xml"});
  ASSERT_EQ(mi300.status, 0) << mi300.err;
  EXPECT_NE(mi300.out.find("xGMI fabric 7 xGMI links x 48 GB/s = 336 GB/s per GPU"),
            std::string::npos)
      << mi300.out;
}

TEST(TopoCli, DetectWritesALoadableTopologyOfThisMachine) {
  const std::string file = tempFile("detected.json", "");
  const CliResult r = ringlab({"topo", "detect", "--slots", "cores", "--json", file});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("bandwidths are assumptions"), std::string::npos) << r.out;
  const CliResult shown = ringlab({"topo", "show", "--topo-file", file, "--links", "2"});
  EXPECT_EQ(shown.status, 0) << shown.err;
  expectError({"topo", "detect", "--slots", "tpus"}, {"--slots tpus"});
  std::remove(file.c_str());
}

TEST(SimCli, PrintsTheBenchTableAndNamesTopologyAndPlacement) {
  const std::string json = ::testing::TempDir() + std::to_string(getpid()) + "_sim.json";
  const CliResult r = ringlab({"sim", "--topo", "nodes=2,ranks=2", "--placement", "rr", "-b", "1M",
                               "-e", "4M", "--json", json, "--critical-path", "--links", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(
      r.out.find("#         size        count     type  redop      time   algbw   busbw #wrong"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# topology: nodes=2,ranks=2"), std::string::npos);
  EXPECT_NE(r.out.find("# placement: round-robin"), std::string::npos);
  EXPECT_NE(r.out.find("      4194304      1048576  float32    sum"), std::string::npos) << r.out;
  const std::string doc = slurpFile(json);
  EXPECT_NE(doc.find("\"placement\""), std::string::npos);
  EXPECT_NE(doc.find("round-robin"), std::string::npos);
  std::remove(json.c_str());
}

// The whitespace-separated field `index` of the first line of `text` that starts (after spaces)
// with `head`; empty when there is none.
std::string fieldOfLine(const std::string& text, const std::string& head, int index) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(' ') != line.find(head)) continue;
    std::istringstream fields(line);
    std::string field;
    for (int i = 0; i <= index && fields >> field; ++i) {
    }
    return field;
  }
  return "";
}

TEST(TopoCli, SearchOnAGpuSystemHoldsItsRingsAgainstNccls) {
  const CliResult r = ringlab({"topo", "search", "--system", "dgx-h100", "--nodes", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("# system: 8 x H100 SXM per node"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("every NIC on one non-blocking switch, no PXN"), std::string::npos);
  // NCCL's channels on two DGX H100 (the model's search), one ring per NIC's rail.
  EXPECT_NE(r.out.find("p 16  channels 8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  NCCL rings "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0,7,6,5,4,3,2,1,8,15,14,13,12,11,10,9 | 1,0,7,"), std::string::npos);
  EXPECT_NE(r.out.find("x faster than NCCL rings"), std::string::npos) << r.out;
  // The search prices NCCL's rings with its own objective: it cannot do worse than them.
  EXPECT_LE(std::stod(fieldOfLine(r.out, "searched", 1)),
            std::stod(fieldOfLine(r.out, "NCCL rings", 2)) * 1.0001)
      << r.out;
  // Given rings get as many of NCCL's as they are.
  const CliResult given = ringlab(
      {"topo", "show", "--system", "dgx-h100", "--order", "0,1,2,3,4,5,6,7|7,6,5,4,3,2,1,0"});
  ASSERT_EQ(given.status, 0) << given.err;
  EXPECT_NE(given.out.find("0,1,2,3,4,5,6,7 | 1,2,3,4,5,6,7,0\n"), std::string::npos) << given.out;
}

TEST(SimCli, AGpuSystemRunsNcclsRingsOnItsLinks) {
  const CliResult sim =
      ringlab({"sim", "--system", "dgx-h100", "--nodes", "2", "-b", "64M", "-e", "64M"});
  ASSERT_EQ(sim.status, 0) << sim.err;
  EXPECT_NE(sim.out.find("rings: NCCL's, one per channel"), std::string::npos) << sim.out;
  EXPECT_NE(sim.out.find("algorithm multi_ring  transport simulated  p 16"), std::string::npos);
  EXPECT_NE(sim.out.find("# ring order 0,7,6,5,4,3,2,1,8,15,14,13,12,11,10,9 | "),
            std::string::npos)
      << sim.out;
  // Two models of the same rings on the same links, each its own code: the flow simulation and the
  // ring search's objective agree where every step is the same (one size, no contention change).
  const CliResult topo = ringlab({"topo", "search", "--system", "dgx-h100", "--nodes", "2"});
  ASSERT_EQ(topo.status, 0) << topo.err;
  const double simulated_us = std::stod(fieldOfLine(sim.out, "67108864", 4));
  const double priced_us = std::stod(fieldOfLine(topo.out, "NCCL rings", 2));
  EXPECT_NEAR(simulated_us / priced_us, 1.0, 0.02) << sim.out << topo.out;
  // An explicit algorithm replaces NCCL's rings.
  const CliResult ring = ringlab({"sim", "--system", "dgx-h100", "--algo", "ring", "-e", "1K"});
  ASSERT_EQ(ring.status, 0) << ring.err;
  EXPECT_NE(ring.out.find("algorithm ring "), std::string::npos) << ring.out;
  EXPECT_EQ(ring.out.find("rings: NCCL's"), std::string::npos) << ring.out;
}

TEST(SimCli, AGpuSystemIsTheTopologyAndTakesAPThatFits) {
  expectError({"sim", "--system", "dgx-h100", "--topo", "nodes=2"},
              {"--system dgx-h100", "--topo", "not both"});
  expectError({"topo", "search", "--system", "dgx-h100", "-p", "12"},
              {"-p 12", "--system dgx-h100"});
  expectError({"sim", "--system", "gpu=h100,gpus=9x"}, {"--system", "9x"});
}

TEST(SimCli, RefusesASimulationBeyondMemoryWithTheEstimate) {
  expectError({"sim", "--topo", "nodes=4096,ranks=16", "--algo", "hierarchical", "--ranks-per-node",
               "16", "-b", "1M", "-e", "1M"},
              {"GiB", "--max-memory", "hierarchical at p = 65536"});
}

}  // namespace
