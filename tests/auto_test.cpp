// `--algo auto`: the choice from the model and from a measured decision table, its Open MPI
// export, and correct results whatever it chooses.
#include <gtest/gtest.h>

#include <thread>

#include "expect_error.hpp"
#include "ringlab/communicator.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/model/decision_table.hpp"
#include "ringlab/model/mpi_exports.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/record/tune_decision.hpp"
#include "ringlab/transport/inproc.hpp"
#include "test_support.hpp"

namespace ringlab::model {
namespace {

DecisionTable sampleTable() {
  DecisionTable t;
  t.ranks = 4;
  t.transport = "inproc";
  t.dtype = "float32";
  t.host = "h";
  t.ringlabVersion = "v";
  t.date = "d";
  t.measured = {{8, {{"ring", 30}, {"recursive_doubling", 10}}},
                {64, {{"ring", 31}, {"recursive_doubling", 11}}},
                {4096, {{"ring", 40}, {"recursive_doubling", 45}}},
                {1 << 20, {{"ring", 900}, {"recursive_doubling", 2000}}}};
  return t;
}

TEST(AutoDecisionTable, MergesRunsAndChoosesBySize) {
  const DecisionTable t = sampleTable();
  const auto rules = t.rules();
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].fromBytes, 0u);
  EXPECT_EQ(rules[0].algorithm, "recursive_doubling");
  EXPECT_EQ(rules[1].fromBytes, 4096u);
  EXPECT_EQ(rules[1].algorithm, "ring");
  EXPECT_EQ(t.choose(1), "recursive_doubling");
  EXPECT_EQ(t.choose(4095), "recursive_doubling");
  EXPECT_EQ(t.choose(4096), "ring");
  EXPECT_EQ(t.choose(1ull << 40), "ring");
}

TEST(AutoDecisionTable, OpenMpiRulesStartAtZeroWithOpenMpiNumbers) {
  const std::string rules = toOpenMpiRules(sampleTable(), parseLibraryVersion("5.0.7", "v"));
  EXPECT_EQ(rules.rfind("rule-file-version-2\n", 0), 0u);
  EXPECT_NE(rules.find("\n2 # collective id: allreduce\n"), std::string::npos);
  EXPECT_NE(rules.find("\n4 # communicator size\n"), std::string::npos);
  EXPECT_NE(rules.find("\n0 3 0 0 0 # recursive_doubling"), std::string::npos);
  EXPECT_NE(rules.find("\n4096 4 0 0 0 # ring"), std::string::npos);
  EXPECT_EQ(openMpiAllreduceAlgorithm("rabenseifner"), 6);
  EXPECT_EQ(openMpiAllreduceAlgorithm("multi_ring"), 0);
}

TEST(AutoDecisionTable, JsonRoundTripAndStrictReading) {
  const DecisionTable back = decisionTableFromJson(toJson(sampleTable()), "t.json");
  EXPECT_EQ(back.choose(8), "recursive_doubling");
  EXPECT_EQ(back.ranks, 4);
  nlohmann::json j = toJson(sampleTable());
  j["format"] = "ringlab-tune/0";
  EXPECT_THROW(decisionTableFromJson(j, "old.json"), Error);
  j = toJson(sampleTable());
  j["measured"][0]["time_us"]["warp_drive"] = 1.0;
  EXPECT_THROW(decisionTableFromJson(j, "unknown.json"), Error);
  j = toJson(sampleTable());
  j.erase("p");
  EXPECT_THROW(decisionTableFromJson(j, "no-p.json"), Error);
}

// tune's own table reads back whatever interval it recorded. Over two rounds that disagree,
// Student's t with one degree of freedom makes the interval astronomically wide (here past 1e17),
// and a reader that capped the bounds at 1e12 refused the file tune had just written (seen under
// load: margin.high = 1.6e45).
TEST(AutoDecisionTable, AnIntervalOverTwoRoundsThatDisagreeReadsBack) {
  const record::SizeDecision d =
      record::decideSize({{"ring", {1.0, 1.0}}, {"recursive_doubling", {0.001, 1.0}}}, "ring");
  ASSERT_TRUE(d.margin);
  EXPECT_GT(d.margin->high, 1e17);
  DecisionTable t = sampleTable();
  t.measured[0].margin = d.margin;
  const DecisionTable back = decisionTableFromJson(toJson(t), "t.json");
  ASSERT_TRUE(back.measured[0].margin);
  EXPECT_EQ(back.measured[0].margin->high, d.margin->high);
  EXPECT_EQ(back.measured[0].margin->low, d.margin->low);
}

TEST(AutoChoice, TableFirstThenModel) {
  schedule::AlgorithmSpec autoSpec;
  autoSpec.name = kAutoAlgorithm;
  const ModelParams m{{5e-6, 1 / 12.5e9}, {1 / 20e9}, {0}, {0, 0, 0}};
  const DecisionTable t = sampleTable();
  const auto all = schedule::Collective::AllReduce;
  EXPECT_EQ(chooseAlgorithm(autoSpec, all, 4, 2, DataType::Float32, m, &t).name,
            "recursive_doubling");
  EXPECT_EQ(chooseAlgorithm(autoSpec, all, 4, 1 << 20, DataType::Float32, m, &t).name, "ring");
  // A table measured at another p is not used: the model decides.
  EXPECT_EQ(chooseAlgorithm(autoSpec, all, 8, 1 << 20, DataType::Float32, m, &t).name,
            fastestAlgorithm(8, 1 << 20, DataType::Float32, m));
  EXPECT_EQ(
      chooseAlgorithm(autoSpec, schedule::Collective::ReduceScatter, 4, 8, DataType::Float32, m)
          .name,
      "ring");
  schedule::AlgorithmSpec withOrder = autoSpec;
  withOrder.ringOrder = {0, 1, 2, 3};
  EXPECT_THROW(chooseAlgorithm(withOrder, all, 4, 8, DataType::Float32, m), Error);
}

TEST(AutoChoice, CommunicatorRunsWhateverItChoosesCorrectly) {
  const int p = 5;
  transport::InprocWorld world(p);
  std::vector<std::thread> threads;
  for (int r = 0; r < p; ++r) {
    threads.emplace_back([&, r] {
      Communicator comm(world.transport(r));
      CollectiveOptions options;
      options.algorithm.name = kAutoAlgorithm;
      for (std::uint64_t count : {1ull, 100ull, 300000ull}) {
        std::vector<std::int32_t> data(count);
        for (std::uint64_t i = 0; i < count; ++i)
          data[i] = static_cast<std::int32_t>(i % 1000) * (r + 1);
        comm.allreduce(data.data(), data.data(), count, DataType::Int32, ReduceOp::Sum, options);
        for (std::uint64_t i = 0; i < count; ++i) {
          ASSERT_EQ(data[i], static_cast<std::int32_t>(i % 1000) * 15)
              << "count " << count << " element " << i;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
}

// The Communicator says which algorithm each call ran, so that a caller reporting it does not
// choose again: at p = 3 "auto" picks by size, the default options stand for reduce's own tree.
TEST(AutoChoice, CommunicatorReportsTheAlgorithmItResolved) {
  const int p = 3;
  const ModelParams m{{5e-6, 1 / 12.5e9}, {1 / 20e9}, {0}, {0, 0, 0}};
  const std::uint64_t small = 1, large = 1 << 20;
  schedule::AlgorithmSpec autoSpec;
  autoSpec.name = kAutoAlgorithm;
  const auto chosen = [&](std::uint64_t count) {
    return chooseAlgorithm(autoSpec, schedule::Collective::AllReduce, p, count, DataType::Float32,
                           m);
  };
  // The sizes are chosen so that the model picks two different algorithms.
  ASSERT_NE(chosen(small).name, chosen(large).name);
  test::runRanks(p, [&](int, Communicator& comm) {
    EXPECT_THROW(comm.resolvedAlgorithm(), Error);  // no call yet
    CollectiveOptions options;
    options.algorithm = autoSpec;
    options.autoModel = m;
    std::vector<float> data(large, 1.0f);
    for (std::uint64_t count : {small, large, small}) {
      comm.allreduce(data.data(), data.data(), count, DataType::Float32, ReduceOp::Max, options);
      EXPECT_EQ(comm.resolvedAlgorithm(), chosen(count)) << "count " << count;
    }
    comm.reduce(data.data(), data.data(), small, DataType::Float32, ReduceOp::Max, 1);
    EXPECT_EQ(comm.resolvedAlgorithm().name, defaultAlgorithm(schedule::Collective::Reduce).name);
    EXPECT_EQ(comm.resolvedAlgorithm().root, 1);
  });
}

// The default options stand for reduce's own algorithm; a ring the caller named is refused, as any
// other algorithm that does not build reduce is, even right after a call with the default options
// (whose plan the Communicator keeps for the next call alike).
TEST(AutoChoice, ANamedRingIsRefusedWhereTheDefaultStandsForTheCollectivesOwn) {
  test::runRanks(2, [&](int, Communicator& comm) {
    std::vector<float> data(8, 1.0f);
    comm.reduce(data.data(), data.data(), data.size(), DataType::Float32, ReduceOp::Sum, 0);
    EXPECT_EQ(comm.resolvedAlgorithm().name, defaultAlgorithm(schedule::Collective::Reduce).name);
    CollectiveOptions named;
    named.algorithmNamed = true;  // its algorithm is the default spec: the ring
    test::expectInvalid(
        [&] {
          comm.reduce(data.data(), data.data(), data.size(), DataType::Float32, ReduceOp::Sum, 0,
                      named);
        },
        {"'ring'", "not reduce", "binomial_tree"});
    comm.allreduce(data.data(), data.data(), data.size(), DataType::Float32, ReduceOp::Sum, named);
    EXPECT_EQ(comm.resolvedAlgorithm().name, "ring");
  });
}

}  // namespace
}  // namespace ringlab::model
