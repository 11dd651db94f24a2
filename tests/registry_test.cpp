// The algorithm registry: a toy algorithm added through it alone reaches the verifier, the model,
// the Communicator, bench's measured sweep, tune's table, auto's choice, and the simulator;
// the built-in entries agree with their schedules; the ring shape agrees with the ring schedules;
// sizes whose byte counts overflow are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "ringlab/communicator.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/partition.hpp"
#include "ringlab/measure/bench.hpp"
#include "ringlab/measure/tune.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/model/sweep.hpp"
#include "ringlab/model/verify_request.hpp"
#include "ringlab/schedule/ring_shape.hpp"
#include "ringlab/schedule/verify.hpp"
#include "ringlab/schedule/volume.hpp"
#include "ringlab/sim/allreduce_sim.hpp"
#include "ringlab/sim/workload.hpp"
#include "test_support.hpp"

namespace ringlab {
namespace {

using schedule::AlgorithmSpec;
using schedule::Collective;
using schedule::Schedule;

constexpr const char* kToy = "toy_reduce_broadcast";

// Everyone sends its vector to rank 0, which reduces them; then rank 0 sends the result back.
Schedule toyReduceBroadcast(Collective, int p, const AlgorithmSpec&) {
  Schedule s;
  s.algorithm = kToy;
  s.ranks = p;
  s.blocks = 1;
  if (p == 1) return s;
  s.steps.push_back({"reduce", {}});
  s.steps.push_back({"broadcast", {}});
  for (int r = 1; r < p; ++r) {
    s.steps[0].transfers.push_back({r, 0, 0, 1, schedule::RecvMode::Reduce});
    s.steps[1].transfers.push_back({0, r, 0, 1, schedule::RecvMode::Copy});
  }
  return s;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

class ToyAlgorithm : public ::testing::Test {
 protected:
  void SetUp() override {
    model::Algorithm toy;
    toy.name = kToy;
    toy.build = toyReduceBroadcast;
    toy.candidate = true;  // auto and tune consider it
    model::registerAlgorithm(toy);
  }
  void TearDown() override { model::unregisterAlgorithm(kToy); }

  static AlgorithmSpec spec() {
    AlgorithmSpec s;
    s.name = kToy;
    return s;
  }
};

TEST_F(ToyAlgorithm, VerifiesAndIsListed) {
  EXPECT_TRUE(contains(model::algorithmNames(), kToy));
  EXPECT_TRUE(contains(model::candidateAlgorithms(), kToy));  // tune's default list, auto's
  for (int p = 1; p <= 9; ++p) {
    const Schedule s = model::buildSchedule(Collective::AllReduce, p, spec());
    EXPECT_TRUE(schedule::verify(s).valid) << p;
  }
  // It builds allreduce only, and takes no ring order.
  test::expectInvalid([] { model::buildSchedule(Collective::AllGather, 4, spec()); },
                      "allreduce only");
  AlgorithmSpec ordered = spec();
  ordered.ringOrder = {0, 1, 2, 3};
  EXPECT_THROW(model::buildSchedule(Collective::AllReduce, 4, ordered), Error);
}

TEST_F(ToyAlgorithm, IsPricedByWalkingItsSchedule) {
  const model::ModelParams m{{5e-6, 1 / 12.5e9}, {1 / 20e9}, {0}, {0, 0, 0}};
  const std::uint64_t count = 1 << 16;
  const Schedule s = model::buildSchedule(Collective::AllReduce, 8, spec());
  const model::Cost walked = model::scheduleCost(s, count, DataType::Float32, m);
  EXPECT_EQ(walked.steps, 2u);
  EXPECT_EQ(model::predictAllReduce(spec(), 8, count, DataType::Float32, m).total_s(),
            walked.total_s());
  const auto all = model::predictAll(8, count, DataType::Float32, m);  // what `ringlab model` lists
  const auto toy =
      std::find_if(all.begin(), all.end(), [](const auto& p) { return p.algorithm == kToy; });
  ASSERT_NE(toy, all.end());
  EXPECT_EQ(toy->cost.total_s(), walked.total_s());
  EXPECT_EQ(toy->volume.maxSentBytes, 7u * count * 4);  // rank 0 broadcasts to 7
  EXPECT_EQ(model::countPeriod(kToy, 8), 1u);           // one block
  // At 1 element and a large alpha its 2 steps beat every other candidate: auto picks it.
  const model::ModelParams slowStart{{1e-3, 1 / 12.5e9}, {1 / 20e9}, {0}, {0, 0, 0}};
  EXPECT_EQ(model::fastestAlgorithm(64, 1, DataType::Float32, slowStart), kToy);
}

TEST_F(ToyAlgorithm, RunsOnTheCommunicator) {
  test::runRanks(5, [](int rank, Communicator& comm) {
    CollectiveOptions options;
    options.algorithm.name = kToy;
    std::vector<std::int32_t> data(1000);
    for (std::size_t i = 0; i < data.size(); ++i)
      data[i] = static_cast<std::int32_t>(i) * (rank + 1);
    comm.allreduce(data.data(), data.data(), data.size(), DataType::Int32, ReduceOp::Sum, options);
    for (std::size_t i = 0; i < data.size(); ++i)
      ASSERT_EQ(data[i], static_cast<std::int32_t>(i) * 15) << i;
  });
}

// What `ringlab bench --algo toy_reduce_broadcast` runs: the measured sweep, every size checked.
TEST_F(ToyAlgorithm, IsBenchmarked) {
  measure::BenchConfig config;
  config.ranks = 3;
  config.minBytes = 4;
  config.maxBytes = 4096;
  config.stepFactor = 8;
  config.iterations = 2;
  config.warmup = 0;
  config.collective.algorithm = spec();
  measure::validate(config);
  std::vector<record::RecordRow> rows;
  measure::runBenchThreads(config, [&](const record::RecordRow& row) { rows.push_back(row); });
  ASSERT_EQ(rows.size(), 4u);  // 4 B, 32 B, 256 B, 2 KiB
  for (const record::RecordRow& row : rows) {
    EXPECT_EQ(row.algorithm, kToy);
    EXPECT_EQ(row.outOfPlace->wrong, 0u) << row.bytes;
    EXPECT_EQ(row.inPlace->wrong, 0u) << row.bytes;
  }
  EXPECT_EQ(measure::startRecord(config, record::currentRunInfo()).run.algorithm, kToy);
}

// What `ringlab tune` measures by default now includes it, and the table names it.
TEST_F(ToyAlgorithm, IsTuned) {
  measure::TuneConfig config;
  config.ranks = 3;
  config.minBytes = 8;
  config.maxBytes = 128;
  config.iterations = 2;
  config.rounds = 2;
  EXPECT_TRUE(contains(config.algorithms, kToy));
  measure::validate(config);
  const model::DecisionTable table = measure::tune(config, record::currentRunInfo());
  ASSERT_EQ(table.measured.size(), 3u);  // 8, 32, 128 B
  for (const model::MeasuredSize& m : table.measured) EXPECT_GT(m.timeUs.at(kToy), 0) << m.bytes;
}

TEST_F(ToyAlgorithm, IsSimulatedFromItsSchedule) {
  const sim::AllReduceSim allReduce(spec(), 4, 1ull << 30, "a limit");
  EXPECT_FALSE(allReduce.fromOrders());
  EXPECT_EQ(allReduce.workload(100, DataType::Float32).steps(), 2u);
}

TEST_F(ToyAlgorithm, NamesAreUnique) {
  model::Algorithm again;
  again.name = kToy;
  again.build = toyReduceBroadcast;
  test::expectInvalid([&] { model::registerAlgorithm(again); }, "already registered");
  again.name = "ring";
  EXPECT_THROW(model::registerAlgorithm(again), Error);
  again.name = model::kAutoAlgorithm;
  EXPECT_THROW(model::registerAlgorithm(again), Error);
  again.name = "no_builder";
  again.build = nullptr;
  EXPECT_THROW(model::registerAlgorithm(again), Error);
}

TEST(Registry, UnregistersOnlyRunTimeAlgorithms) {
  test::expectInvalid([] { model::unregisterAlgorithm("ring"); }, "built in");
  EXPECT_THROW(model::unregisterAlgorithm(kToy), Error);  // not registered outside the fixture
  AlgorithmSpec toy;
  toy.name = kToy;
  test::expectInvalid([&] { model::buildSchedule(Collective::AllReduce, 4, toy); },
                      "unknown algorithm");
}

// A schedule carries the name its entry is registered under, whatever its builder wrote: the
// ring's builder registered again as a variant builds schedules of the variant's name.
TEST(Registry, ASchedulesNameIsItsEntrys) {
  model::Algorithm variant = model::findAlgorithm("ring");
  variant.name = "ring_variant";
  model::registerAlgorithm(variant);
  AlgorithmSpec spec;
  spec.name = "ring_variant";
  const Schedule built = model::buildSchedule(Collective::AllReduce, 4, spec);
  model::unregisterAlgorithm("ring_variant");
  EXPECT_EQ(built.algorithm, "ring_variant");
  spec.name = "ring";
  EXPECT_EQ(model::buildSchedule(Collective::AllReduce, 4, spec).algorithm, "ring");
}

// A run-time builder that answers another p or collective than it was asked for is refused
// before its schedule is verified or run.
TEST(Registry, AScheduleOfAnotherPOrCollectiveIsRefused) {
  model::Algorithm off = model::findAlgorithm("ring");
  off.name = "ring_off_by_one";
  off.build = [](Collective collective, int p, const AlgorithmSpec&) {
    AlgorithmSpec ring;
    ring.name = "ring";
    return model::buildSchedule(collective, p + 1, ring);
  };
  model::registerAlgorithm(off);
  AlgorithmSpec spec;
  spec.name = off.name;
  const auto refused = [&] { model::buildSchedule(Collective::AllReduce, 4, spec); };
  test::expectInvalid(refused,
                      "algorithm 'ring_off_by_one' built a schedule of allreduce at "
                      "p = 5 when asked for allreduce at p = 4");
  model::unregisterAlgorithm(off.name);
}

// verify's request: an unnamed algorithm is the collective's default, with the choice's other
// fields; a named one keeps its ring order.
TEST(VerifyRequest, AnUnnamedAlgorithmIsTheCollectivesDefault) {
  model::VerifyRequest request{.ranks = 5, .collective = Collective::Reduce, .root = 3};
  request.algorithmNamed = false;
  const model::VerifiedSchedule tree = model::verifySchedule(request, "the size");
  EXPECT_EQ(tree.spec.name, "binomial_tree");
  EXPECT_EQ(tree.spec.root, 3);
  EXPECT_TRUE(tree.verdict.valid);
  request = {.ranks = 4, .collective = Collective::AllReduce, .bytes = 4000};
  request.algorithm.ringOrder = std::vector<int>{0, 2, 1, 3};
  const model::VerifiedSchedule ring = model::verifySchedule(request, "the size");
  EXPECT_EQ(ring.schedule.ringOrder, (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(ring.volume.maxSentBytes, 2u * 3 * 4000 / 4);  // 2(p-1)n/p
  request.bytes = 4001;
  test::expectInvalid([&] { model::verifySchedule(request, "the size"); },
                      {"the size 4001 is not a multiple of the float32 size (4 bytes)"});
}

TEST(Registry, BuiltInsAndTheirNamesInOtherTools) {
  EXPECT_EQ(model::algorithmNames(),
            (std::vector<std::string>{"ring", "recursive_doubling", "rabenseifner", "binomial_tree",
                                      "multi_ring", "hierarchical"}));
  EXPECT_EQ(
      model::candidateAlgorithms(),
      (std::vector<std::string>{"ring", "recursive_doubling", "rabenseifner", "binomial_tree"}));
  EXPECT_EQ(model::openMpiAllreduceAlgorithm("ring"), 4);
  EXPECT_EQ(model::openMpiAllreduceAlgorithm("recursive_doubling"), 3);
  EXPECT_EQ(model::openMpiAllreduceAlgorithm("hierarchical"), 0);
  EXPECT_EQ(model::findAlgorithm("rabenseifner").mpichName, "reduce_scatter_allgather");
  EXPECT_EQ(model::findAlgorithm("ring").mpichName, "ring");
  // Every candidate has a closed form (auto's fast path) and a period that divides nothing away.
  for (const auto& a : model::algorithmTable()) {
    if (!a->candidate) continue;
    EXPECT_NE(a->closedForm, nullptr) << a->name;
    for (int p : {1, 5, 8}) EXPECT_GE(model::countPeriod(a->name, p), 1u) << a->name;
  }
  // The schedule-size estimate the simulator refuses by is no smaller than the schedule.
  for (const std::string& name : model::algorithmNames()) {
    AlgorithmSpec s;
    s.name = name;
    if (name == "hierarchical") s.ranksPerNode = 4;
    for (int p : {4, 8, 12}) {
      std::uint64_t transfers = 0;
      for (const auto& step : model::buildSchedule(Collective::AllReduce, p, s).steps)
        transfers += step.transfers.size();
      EXPECT_GE(model::scheduleTransfers(s, p), transfers) << name << " p=" << p;
    }
  }
}

// Each use of the ring shape against the schedules ring.hpp and multi_ring.hpp build.
TEST(RingShape, AgreesWithTheRingSchedules) {
  for (int p = 1; p <= 9; ++p) {
    for (int k = 1; k <= 3; ++k) {
      AlgorithmSpec spec;
      spec.name = k == 1 ? schedule::kRing : schedule::kMultiRing;
      spec.channels = k;
      if (k == 1 && p > 2) spec.ringOrder = schedule::RingOrder::fromStride(p, p - 1).ranks();
      const Schedule s = model::buildSchedule(Collective::AllReduce, p, spec);
      const std::string at = spec.name + " p=" + std::to_string(p) + " k=" + std::to_string(k);
      EXPECT_EQ(s.steps.size(), schedule::ringAllReduceSteps(p)) << at;
      EXPECT_EQ(s.blocks, schedule::ringChunks(p, k)) << at;
      const std::vector<schedule::RingOrder> orders = schedule::ringOrdersOf(spec, p);
      ASSERT_EQ(orders.size(), static_cast<std::size_t>(k)) << at;
      if (k == 1) {
        EXPECT_EQ(s.ringOrder, orders.front().ranks()) << at;
      }
      // In every step each channel's chunks move from a rank to its successor on that channel.
      for (const auto& step : s.steps) {
        for (const auto& t : step.transfers) {
          const int channel = static_cast<int>(t.firstBlock / static_cast<std::uint32_t>(p));
          EXPECT_EQ(t.dst, orders[channel].next(t.src)) << at;
        }
      }
      for (std::uint64_t count : {0ull, 1ull, 7ull, 1000ull, 1001ull}) {
        std::uint64_t largest = 0;
        for (std::uint32_t i = 0; i < s.blocks; ++i) {
          const std::uint64_t chunk = partitionChunk(count, s.blocks, i).count;
          EXPECT_EQ(schedule::ringChunkElements(count, s.blocks, i), chunk) << at;
          largest = std::max(largest, chunk);
        }
        EXPECT_EQ(schedule::ringLargestChunkElements(count, s.blocks), largest) << at;
        // The simulator's and the model's rings: as many steps as the schedule.
        EXPECT_EQ(sim::ringAllReduceWorkload(orders, count, DataType::Float32).steps(),
                  s.steps.size())
            << at;
      }
      const model::ModelParams m{{1e-6, 1e-10}, {1e-10}, {0}, {0, 0, 0}};
      EXPECT_EQ(model::ringAllReduceCost(p, 1000, 4, m).steps, s.steps.size()) << at;
    }
  }
  AlgorithmSpec binomial;
  binomial.name = "binomial_tree";
  EXPECT_TRUE(schedule::ringOrdersOf(binomial, 4).empty());
  EXPECT_EQ(schedule::ringOrderText(binomial, 4), "n/a (binomial_tree has no ring)");
}

TEST(ModelOverflow, SizesPastTheLimitAreRefused) {
  AlgorithmSpec ring;
  const std::uint64_t huge = ~std::uint64_t{0};
  const model::ModelParams m{{1e-6, 1e-10}, {1e-10}, {0}, {0, 0, 0}};
  const auto priceHuge = [&] { model::predictAllReduce(ring, 3, huge, DataType::Int8, m); };
  test::expectInvalid(priceHuge, {"18446744073709551615", std::to_string(model::kMaxModelBytes)});
  EXPECT_EQ(std::string(test::errorOf(priceHuge).what()).find('\n'), std::string::npos);
  EXPECT_THROW(model::predictAll(3, huge, DataType::Int8, m), Error);
  EXPECT_THROW(model::rabenseifnerCost(4, model::kMaxModelBytes / 4 + 1, 4, m), Error);
  // At the limit the model still prices, and the ring's bytes are not wrapped.
  const model::Cost atLimit =
      model::predictAllReduce(ring, 3, model::kMaxModelBytes, DataType::Int8, m);
  EXPECT_GT(atLimit.bandwidth_s, 0.0);
  // Volumes past 2^64 are refused rather than wrapped.
  const Schedule s = model::buildSchedule(Collective::AllReduce, 3, ring);
  test::expectInvalid([&] { schedule::countVolume(s, huge, DataType::Int8); }, "2^64");
}

TEST(ModelSweep, CrossoversBracketAndConvertToOneShape) {
  const model::ModelParams m{{5e-6, 1 / 12.5e9}, {1 / 20e9}, {0}, {0, 0, 0}};
  const model::SizeSweep sweep = model::sweepSizes(64, 1, 1 << 28, DataType::Float32, m, false);
  ASSERT_EQ(sweep.rows.size(), 29u);
  ASSERT_FALSE(sweep.crossovers.empty());
  std::string before = sweep.rows.front().fastest;
  for (const model::Crossover& c : sweep.crossovers) {
    EXPECT_EQ(c.from, before);
    EXPECT_EQ(model::fastestAlgorithm(64, c.count - 1, DataType::Float32, m), c.from);
    EXPECT_EQ(model::fastestAlgorithm(64, c.count, DataType::Float32, m), c.to);
    EXPECT_EQ(c.bytes, c.count * 4);
    const nlohmann::json j = model::toJson(c);
    EXPECT_EQ(j, (nlohmann::json{
                     {"from", c.from}, {"to", c.to}, {"size_bytes", c.bytes}, {"count", c.count}}));
    before = c.to;
  }
  EXPECT_EQ(sweep.rows.back().fastest, before);
  EXPECT_THROW(model::sweepSizes(64, 0, 8, DataType::Float32, m, false), Error);
  const auto ranks = model::ringVersusRanks({2, 4, 8}, 1 << 20, DataType::Float32, m);
  ASSERT_EQ(ranks.size(), 3u);
  EXPECT_EQ(ranks[2].cost.steps, 14u);
}

}  // namespace
}  // namespace ringlab
