// The exports for MPI libraries: the format each release reads, the algorithms it has, and the
// other communicator sizes and collectives left to the library's own choice. That the installed
// libraries do what the files say is tests/mpi_exports/mpi_export_test.py's part.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/mpich_default_trees.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/model/mpi_exports.hpp"

namespace ringlab::model {
namespace {

DecisionTable table(std::vector<MeasuredSize> measured) {
  DecisionTable t;
  t.ranks = 4;
  t.transport = "shm";
  t.dtype = "float32";
  t.host = "h";
  t.ringlabVersion = "v";
  t.date = "d";
  t.measured = std::move(measured);
  return t;
}

// recursive_doubling from 0, ring from 4096.
DecisionTable twoBands() {
  return table({{8, {{"ring", 30}, {"recursive_doubling", 10}}},
                {4096, {{"ring", 40}, {"recursive_doubling", 45}}}});
}

LibraryVersion version(const char* text) {
  return parseLibraryVersion(text, "--version");
}

TEST(MpiExports, VersionsAsTheToolsPrintThem) {
  const LibraryVersion v = version("5.0.8rc1");
  EXPECT_EQ(v.major, 5);
  EXPECT_EQ(v.minor, 0);
  EXPECT_EQ(v.release, 8);
  EXPECT_EQ(version("v4.1").release, 0);
  for (const char* bad : {"", "4", "four", "4.1.4 ", "4..1", "-4.1.4"}) {
    try {
      version(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("major.minor.release"), std::string::npos) << e.what();
    }
  }
  const auto ompi = openMpiVersionFromOmpiInfo(
      "package:Open MPI Debian\nompi:version:full:4.1.4\nompi:version:repo:v4.1.4\n");
  ASSERT_TRUE(ompi);
  EXPECT_EQ(ompi->text, "4.1.4");
  EXPECT_FALSE(openMpiVersionFromOmpiInfo("something else"));
  const auto mpich = mpichVersionFromMpichversion(
      "MPICH Version:    \t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n");
  ASSERT_TRUE(mpich);
  EXPECT_EQ(mpich->text, "4.0.2");
}

// coll_tuned_dynamic_file.c reads "rule-file-version-2" from v4.1.8 and v5.0.7 on, not before.
TEST(MpiExports, OpenMpiFormatFollowsTheRelease) {
  for (const char* classic : {"2.1.6", "4.0.7", "4.1.4", "4.1.7", "5.0.0", "5.0.6"})
    EXPECT_FALSE(openMpiReadsRuleFileVersion2(version(classic))) << classic;
  for (const char* versioned : {"4.1.8", "4.1.9", "5.0.7", "5.0.10", "5.1.0", "6.0.0"})
    EXPECT_TRUE(openMpiReadsRuleFileVersion2(version(versioned))) << versioned;
}

TEST(MpiExports, ClassicOpenMpiRulesWhole) {
  const std::string rules = toOpenMpiRules(twoBands(), version("4.1.4"));
  EXPECT_EQ(rules,
            "# Open MPI coll/tuned dynamic rules, classic format, for Open MPI 4.1.4\n"
            "# written by ringlab tune: p = 4, transport shm, float32, host h, ringlab v, d\n"
            "1 # number of collectives\n"
            "2 # collective id: allreduce\n"
            "3 # number of communicator sizes\n"
            "1 # communicator size: below 4, Open MPI's own decision\n"
            "1 # number of rules\n"
            "0 0 0 0 # algorithm 0: Open MPI's fixed decision\n"
            "4 # communicator size\n"
            "2 # number of rules\n"
            "# bytes algorithm faninout segsize\n"
            "0 3 0 0 # recursive_doubling (Open MPI recursive_doubling)\n"
            "4096 4 0 0 # ring (Open MPI ring)\n"
            "5 # communicator size: above 4, Open MPI's own decision\n"
            "1 # number of rules\n"
            "0 0 0 0 # algorithm 0: Open MPI's fixed decision\n");
  const std::string v2 = toOpenMpiRules(twoBands(), version("4.1.8"));
  EXPECT_EQ(v2.rfind("rule-file-version-2\n#", 0), 0u) << v2;
  EXPECT_NE(v2.find("\n0 3 0 0 0 # recursive_doubling"), std::string::npos) << v2;
  EXPECT_NE(v2.find("\n4096 4 0 0 0 # ring"), std::string::npos) << v2;
  EXPECT_NE(v2.find("\n0 0 0 0 0 # algorithm 0"), std::string::npos) << v2;
}

// Rabenseifner (6) arrived in Open MPI 4.0 (coll_tuned_allreduce_decision.c).
TEST(MpiExports, OpenMpiAlgorithmsOfTheRelease) {
  EXPECT_EQ(openMpiAllreduceAlgorithms(version("3.1.6")).size(), 6u);
  EXPECT_EQ(openMpiAllreduceAlgorithms(version("4.0.0")).at(6), "rabenseifner");
  const DecisionTable rab = table({{8, {{"rabenseifner", 1}}}});
  EXPECT_NE(toOpenMpiRules(rab, version("4.0.0")).find("\n0 6 0 0 # rabenseifner"),
            std::string::npos);
  try {
    toOpenMpiRules(rab, version("3.1.6"));
    ADD_FAILURE() << "rabenseifner exported for Open MPI 3.1.6";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Open MPI 3.1.6 does not have (its algorithms: 1 "
                                         "basic_linear, 2 nonoverlapping, 3 recursive_doubling, "
                                         "4 ring, 5 segmented_ring)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(toOpenMpiRules(table({{8, {{"multi_ring", 1}}}}), version("4.1.4")), Error);
  EXPECT_THROW(openMpiAllreduceAlgorithms(version("1.10.7")), Error);
}

using Tree = nlohmann::ordered_json;

TEST(MpiExports, MpichSelectionChangesOnlyAllreduceAtP) {
  const DecisionTable t = table({{8, {{"recursive_doubling", 1}, {"rabenseifner", 2}}},
                                 {65536, {{"recursive_doubling", 2}, {"rabenseifner", 1}}}});
  const Tree out = Tree::parse(toMpichSelectionJson(t, version("4.0.2")));
  Tree expected = Tree::parse(detail::kMpichCollGeneric40);
  const Tree defaultIntra = expected["collective=allreduce"]["comm_type=intra"];
  // Every other collective, and allreduce on other communicators, exactly as MPICH has them.
  Tree rest = out;
  Tree& intra = rest["collective=allreduce"]["comm_type=intra"];
  std::vector<std::string> keys;
  for (const auto& [key, value] : intra.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"comm_size<4", "comm_size<=4", "comm_size=any"}));
  EXPECT_EQ(intra["comm_size<4"], defaultIntra);
  EXPECT_EQ(intra["comm_size=any"], defaultIntra);
  const Tree bands = intra["comm_size<=4"];
  intra = defaultIntra;
  EXPECT_EQ(rest, expected);
  // Below 65536 bytes recursive doubling; from there reduce_scatter_allgather where MPICH's
  // restrictions (a built-in op, count at least the power of two) hold, else MPICH's default.
  EXPECT_EQ(bands.begin().key(), "avg_msg_size<65536");
  EXPECT_EQ(bands["avg_msg_size<65536"],
            Tree::parse(R"({"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}})"));
  const Tree& large = bands["avg_msg_size=any"];
  EXPECT_EQ(large["is_op_built_in=yes"]["count=any"],
            Tree::parse(R"({"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}})"));
  EXPECT_EQ(large["is_op_built_in=yes"]["count<pow2"], defaultIntra);
  EXPECT_EQ(large["is_op_built_in=no"], defaultIntra);
}

// MPICH 4.1 added the ring (coll_algorithms.txt) and changed the default barrier.
TEST(MpiExports, MpichAlgorithmsOfTheRelease) {
  const DecisionTable ring = table({{8, {{"ring", 1}}}});
  try {
    toMpichSelectionJson(ring, version("4.0.2"));
    ADD_FAILURE() << "ring exported for MPICH 4.0.2";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("MPICH 4.0.2 (its algorithms: smp, recursive_doubling, "
                                         "reduce_scatter_allgather); MPICH 4.1 added ring"),
              std::string::npos)
        << e.what();
  }
  const Tree out = Tree::parse(toMpichSelectionJson(ring, version("4.1.2")));
  EXPECT_EQ(out["collective=allreduce"]["comm_type=intra"]["comm_size<=4"]["avg_msg_size=any"]
               ["is_commutative=yes"],
            Tree::parse(R"({"algorithm=MPIR_Allreduce_intra_ring": {}})"));
  EXPECT_EQ(out["collective=barrier"],
            Tree::parse(detail::kMpichCollGeneric41)["collective=barrier"]);
  EXPECT_THROW(toMpichSelectionJson(table({{8, {{"binomial_tree", 1}}}}), version("4.3.0")), Error);
  EXPECT_THROW(mpichAllreduceAlgorithms(version("3.4.3")), Error);
  // MPICH reads sizes with atoi: a band beyond an int cannot be written.
  const DecisionTable huge =
      table({{8, {{"recursive_doubling", 1}, {"rabenseifner", 2}}},
             {1ull << 32, {{"recursive_doubling", 2}, {"rabenseifner", 1}}}});
  EXPECT_THROW(toMpichSelectionJson(huge, version("4.0.2")), Error);
}

}  // namespace
}  // namespace ringlab::model
