// Reduce and broadcast as binomial trees, alltoall as a pairwise exchange: their schedules through
// the registry and the verifier (every p and root, and broken ones refused), their closed forms
// against the schedule walk and the textbook, and the Communicator's calls on every transport
// against closed forms, at awkward sizes and roots.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cost_expectations.hpp"
#include "expect_error.hpp"
#include "ringlab/communicator.hpp"
#include "ringlab/exec/rank_plan.hpp"
#include "ringlab/model/cost.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/schedule/binomial_tree.hpp"
#include "ringlab/schedule/holdings.hpp"
#include "ringlab/schedule/pairwise_exchange.hpp"
#include "ringlab/schedule/verify.hpp"
#include "ringlab/schedule/volume.hpp"
#include "transport_worlds.hpp"

namespace ringlab {
namespace {

using schedule::AlgorithmSpec;
using schedule::Collective;
using schedule::Schedule;

std::uint64_t ceilLog2(int p) {
  return std::bit_width(static_cast<std::uint64_t>(p) - 1);
}

AlgorithmSpec rooted(const char* name, int root) {
  AlgorithmSpec spec;
  spec.name = name;
  spec.root = root;
  return spec;
}

std::size_t transferCount(const Schedule& s) {
  std::size_t n = 0;
  for (const schedule::Step& step : s.steps) n += step.transfers.size();
  return n;
}

// ---------------------------------------------------------------------------------------------
// Schedules

TEST(CollectiveSchedules, TreesVerifyForEveryPAndRoot) {
  for (int p = 1; p <= 17; ++p) {
    for (int root = 0; root < p; ++root) {
      for (Collective c : {Collective::Reduce, Collective::Broadcast}) {
        const std::string at = std::string(schedule::collectiveName(c)) +
                               " p=" + std::to_string(p) + " root=" + std::to_string(root);
        const Schedule s = model::buildSchedule(c, p, rooted("binomial_tree", root));
        EXPECT_TRUE(schedule::verify(s).valid) << at << ": " << schedule::verify(s).reason;
        EXPECT_EQ(s.steps.size(), ceilLog2(p)) << at;
        EXPECT_EQ(transferCount(s), static_cast<std::size_t>(p - 1)) << at;  // one per non-root
        // Through the model's default too: what `auto` runs for the collective.
        EXPECT_EQ(model::defaultAlgorithm(c).name, "binomial_tree");
      }
    }
  }
}

TEST(CollectiveSchedules, PairwiseExchangeVerifiesForEveryP) {
  for (int p = 1; p <= 17; ++p) {
    AlgorithmSpec spec;
    spec.name = schedule::kPairwiseExchange;
    const Schedule s = model::buildSchedule(Collective::AllToAll, p, spec);
    EXPECT_TRUE(schedule::verify(s).valid) << p << ": " << schedule::verify(s).reason;
    EXPECT_EQ(s.steps.size(), static_cast<std::size_t>(p - 1)) << p;
    EXPECT_EQ(transferCount(s), static_cast<std::size_t>(p * (p - 1))) << p;
    // Each rank sends (p - 1) chunks of n / p: n (p - 1) / p bytes; none is reduced.
    const schedule::VolumeReport v = schedule::countVolume(s, 60 * p, DataType::Float32);
    EXPECT_EQ(v.maxSentBytes, static_cast<std::uint64_t>(60 * (p - 1) * 4)) << p;
    for (const auto& rank : v.perRank) EXPECT_EQ(rank.reducedBytes, 0u) << p;
  }
  EXPECT_EQ(model::defaultAlgorithm(Collective::AllToAll).name, schedule::kPairwiseExchange);
}

TEST(CollectiveSchedules, HoldingsShowTheRootAndTheDestinations) {
  // Broadcast from 2 of 5: before, only rank 2 holds the block (whole); after, every rank does.
  const auto broadcast = schedule::holdingsAfterEachStep(schedule::binomialTreeBroadcast(5, 2));
  for (int r = 0; r < 5; ++r) EXPECT_EQ(broadcast.front()[r][0], r == 2 ? 0x1fu : 0u) << r;
  for (int r = 0; r < 5; ++r) EXPECT_EQ(broadcast.back()[r][0], 0x1fu) << r;
  // Reduce to 3 of 5: rank 3 ends with every contribution.
  EXPECT_EQ(schedule::holdingsAfterEachStep(schedule::binomialTreeReduce(5, 3)).back()[3][0],
            0x1fu);
  // Alltoall over 3: block (s, d) = 3s + d ends whole at d.
  const auto exchanged = schedule::holdingsAfterEachStep(schedule::pairwiseExchangeAllToAll(3));
  for (std::uint32_t b = 0; b < 9; ++b) EXPECT_EQ(exchanged.back()[b % 3][b], 0x7u) << b;
}

TEST(CollectiveSchedules, VerifierRefusesBrokenOnes) {
  // A broadcast that skips a rank leaves it with nothing.
  Schedule broadcast = schedule::binomialTreeBroadcast(4, 1);
  broadcast.steps.back().transfers.pop_back();
  const schedule::Verdict missed = schedule::verify(broadcast);
  EXPECT_FALSE(missed.valid);
  EXPECT_NE(missed.reason.find("holds no data"), std::string::npos) << missed.reason;
  // A reduce whose root misses a child lacks that subtree's contributions.
  Schedule reduce = schedule::binomialTreeReduce(4, 0);
  reduce.steps.back().transfers.clear();
  const schedule::Verdict partial = schedule::verify(reduce);
  EXPECT_FALSE(partial.valid);
  EXPECT_NE(partial.reason.find("rank 0 block 0 lacks the contributions of ranks {2,3}"),
            std::string::npos)
      << partial.reason;
  // An alltoall block sent to the wrong rank never reaches its destination.
  Schedule exchange = schedule::pairwiseExchangeAllToAll(3);
  exchange.steps[0].transfers[0].dst = 2;  // block (0, 1) to rank 2
  const schedule::Verdict astray = schedule::verify(exchange);
  EXPECT_FALSE(astray.valid);
  EXPECT_NE(astray.reason.find("rank 1 block 1 holds no data"), std::string::npos) << astray.reason;
  Schedule wrongBlocks = schedule::pairwiseExchangeAllToAll(3);
  wrongBlocks.blocks = 3;
  wrongBlocks.blockOwner.resize(3);
  EXPECT_NE(schedule::verify(wrongBlocks).reason.find("p x p = 9 blocks, not 3"),
            std::string::npos);
}

TEST(CollectiveSchedules, ExecutorRefusesAForwardedAllToAllBlock) {
  // Valid as data (block (0, 1) reaches rank 1 through rank 2), but a rank has no place to keep
  // another pair's block: the plan refuses it rather than run it wrong.
  Schedule relay = schedule::pairwiseExchangeAllToAll(3);
  relay.steps[0].transfers[0].dst = 2;
  relay.steps.push_back({"relay", {{2, 1, 1, 2, schedule::RecvMode::Copy}}});
  ASSERT_TRUE(schedule::verify(relay).valid) << schedule::verify(relay).reason;
  test::expectInvalid([&] { exec::planForRank(relay, 0, 6); },
                      {"block 1", "from rank 0 to rank 2", "straight"});
  test::expectInvalid([] { exec::planForRank(schedule::pairwiseExchangeAllToAll(3), 0, 7); },
                      {"7 elements", "p = 3", "multiple of p"});
}

TEST(CollectiveSchedules, RegistryNamesWhatBuildsEachCollective) {
  EXPECT_EQ(model::algorithmNames(Collective::Reduce), std::vector<std::string>{"binomial_tree"});
  EXPECT_EQ(model::algorithmNames(Collective::Broadcast),
            std::vector<std::string>{"binomial_tree"});
  EXPECT_EQ(model::algorithmNames(Collective::AllToAll),
            std::vector<std::string>{"pairwise_exchange"});
  EXPECT_EQ(model::algorithmNames(Collective::ReduceScatter), std::vector<std::string>{"ring"});
  // AllReduce's list (what --algo, auto, tune and bench read) is unchanged.
  EXPECT_EQ(model::algorithmNames(),
            (std::vector<std::string>{"ring", "recursive_doubling", "rabenseifner", "binomial_tree",
                                      "multi_ring", "hierarchical"}));
  test::expectInvalid([] { model::buildSchedule(Collective::Reduce, 4, rooted("ring", 0)); },
                      {"'ring'", "not reduce", "binomial_tree"});
  test::expectInvalid(
      [] { model::buildSchedule(Collective::AllReduce, 4, rooted("pairwise_exchange", 0)); },
      {"alltoall only", "not allreduce"});
  test::expectInvalid(
      [] { model::buildSchedule(Collective::Broadcast, 4, rooted("binomial_tree", 4)); },
      {"root 4", "0..3"});
  test::expectInvalid(
      [] { model::buildSchedule(Collective::Reduce, 4, rooted("binomial_tree", -1)); },
      {"root -1"});
  test::expectInvalid(
      [] { model::buildSchedule(Collective::AllReduce, 4, rooted("binomial_tree", 2)); },
      {"root 2", "allreduce has no root"});
  test::expectInvalid([] { schedule::parseCollective("gather"); },
                      {"'gather'", "reduce, broadcast, alltoall"});
}

// ---------------------------------------------------------------------------------------------
// Prices

const model::ModelParams kParams{{3.7e-6, 1.3e-10}, {0.71e-10, 0}, {0}, {0, 0, 0, 0}, {0, 0}};
const model::ModelParams kContended{{3.7e-6, 1.3e-10}, {0.71e-10, 0}, {1.7}, {0, 0, 0, 0}, {0, 0}};
const model::ModelParams kTwoRegimes{
    {3.7e-6, 1.3e-10}, {0.71e-10, 0}, {1.7}, {65536, 3.9e-10, 1.775e-10, 0}, {0, 0}};

TEST(CollectiveSchedules, ClosedFormsMatchTheScheduleWalk) {
  const std::uint64_t counts[] = {0, 1, 5, 1000, 1001, 4097, 1 << 20};
  for (int p = 1; p <= 17; ++p) {
    for (std::uint64_t count : counts) {
      for (Collective c : {Collective::Reduce, Collective::Broadcast, Collective::AllToAll}) {
        AlgorithmSpec spec = rooted(model::defaultAlgorithm(c).name.c_str(), 0);
        if (schedule::hasRoot(c)) spec.root = p / 2;
        const Schedule s = model::buildSchedule(c, p, spec);
        for (const model::ModelParams& m : {kParams, kContended, kTwoRegimes}) {
          const std::string at = std::string(schedule::collectiveName(c)) +
                                 " p=" + std::to_string(p) + " count=" + std::to_string(count);
          model::expectSameCost(model::predictCollective(c, spec, p, count, DataType::Float32, m),
                                model::scheduleCost(s, count, DataType::Float32, m), at);
        }
      }
    }
  }
}

TEST(CollectiveSchedules, TextbookFormulas) {
  // Thakur, Rabenseifner & Gropp (2005): binomial reduce lg p (alpha + n beta + n gamma),
  // broadcast lg p (alpha + n beta); pairwise exchange (p - 1)(alpha + n/p beta), p dividing n.
  const double a = kParams.link.alpha_s, b = kParams.link.beta_s_per_byte,
               g = kParams.reduce.gamma_s_per_byte;
  for (int p : {2, 3, 4, 5, 8, 13}) {
    const std::uint64_t count = 840 * p;
    const double n = count * 4.0, lg = static_cast<double>(ceilLog2(p));
    EXPECT_NEAR(model::binomialTreeReduceCost(p, count, 4, kParams).total_s(),
                lg * (a + n * b + n * g), 1e-15);
    EXPECT_NEAR(model::binomialTreeBroadcastCost(p, count, 4, kParams).total_s(), lg * (a + n * b),
                1e-15);
    EXPECT_NEAR(model::pairwiseExchangeCost(p, count, 4, kParams).total_s(),
                (p - 1) * (a + n / p * b), 1e-15);
    // The tree AllReduce is its reduce plus its broadcast.
    EXPECT_NEAR(model::binomialTreeCost(p, count, 4, kParams).total_s(),
                lg * (2 * a + 2 * n * b + n * g), 1e-15);
  }
}

// ---------------------------------------------------------------------------------------------
// The Communicator's calls on every transport

class CollectiveCalls : public ::testing::TestWithParam<std::string> {};

// Rank r's element i: small integers, so that float sums are exact in any order.
double contribution(int r, std::uint64_t i) {
  return static_cast<double>((i * 7 + static_cast<std::uint64_t>(r) * 13) % 101) - 50;
}

const std::uint64_t kCounts[] = {0, 1, 7, 1000, 70001};  // 7 and 70001: not divisible by 3 or 5

TEST_P(CollectiveCalls, ReduceGivesTheRootTheClosedFormAndLeavesTheOthersAlone) {
  for (int p : {1, 2, 3, 5}) {
    test::runOnWorld(GetParam(), p, [&](Communicator& comm) {
      const int r = comm.rank();
      for (std::uint64_t count : kCounts) {
        for (int root = 0; root < p; ++root) {
          std::vector<float> send(count), recv(count, -7.5f);
          for (std::uint64_t i = 0; i < count; ++i)
            send[i] = static_cast<float>(contribution(r, i));
          const std::vector<float> sent = send;
          comm.reduce(send.data(), recv.data(), count, DataType::Float32, ReduceOp::Sum, root);
          EXPECT_EQ(send, sent);  // the input is never written
          for (std::uint64_t i = 0; i < count; ++i) {
            double sum = 0;
            for (int q = 0; q < p; ++q) sum += contribution(q, i);
            ASSERT_EQ(recv[i], r == root ? static_cast<float>(sum) : -7.5f)
                << "p=" << p << " root=" << root << " count=" << count << " i=" << i;
          }
        }
        // In place at the root, with avg (divided at the root only) and int max.
        const int root = p - 1;
        std::vector<double> data(count);
        for (std::uint64_t i = 0; i < count; ++i) data[i] = contribution(r, i);
        comm.reduce(data.data(), r == root ? data.data() : nullptr, count, DataType::Float64,
                    ReduceOp::Avg, root);
        std::vector<std::int64_t> ints(count);
        for (std::uint64_t i = 0; i < count; ++i)
          ints[i] = static_cast<std::int64_t>(contribution(r, i)) * 1000000007LL;
        std::vector<std::int64_t> maxima(count, 0);
        comm.reduce(ints.data(), maxima.data(), count, DataType::Int64, ReduceOp::Max, 0);
        for (std::uint64_t i = 0; i < count; ++i) {
          double sum = 0, most = -1e9;
          for (int q = 0; q < p; ++q) {
            sum += contribution(q, i);
            most = std::max(most, contribution(q, i));
          }
          if (r == root) {
            ASSERT_EQ(data[i], sum / p) << "avg p=" << p << " i=" << i;
          }
          if (r != root) {
            ASSERT_EQ(data[i], contribution(r, i)) << "p=" << p << " i=" << i;
          }
          if (r == 0) {
            ASSERT_EQ(maxima[i], static_cast<std::int64_t>(most) * 1000000007LL) << i;
          }
        }
      }
    });
  }
}

TEST_P(CollectiveCalls, BroadcastCopiesTheRootsBitsToEveryRank) {
  for (int p : {1, 2, 3, 5}) {
    test::runOnWorld(GetParam(), p, [&](Communicator& comm) {
      const int r = comm.rank();
      for (std::uint64_t count : kCounts) {
        for (int root = 0; root < p; ++root) {
          // Any bit pattern, NaN payloads and -0.0 included: the root's, drawn from one seed.
          std::mt19937 rng(static_cast<std::uint32_t>(count * 31 + root));
          std::vector<std::uint32_t> expected(count);
          for (auto& bits : expected) bits = rng();
          std::vector<std::uint32_t> data(count, 0xdeadbeefu + r);
          if (r == root) data = expected;
          comm.broadcast(data.data(), count, DataType::Float32, root);
          ASSERT_EQ(data, expected) << "p=" << p << " root=" << root << " count=" << count;
        }
      }
      // Bytes, an odd count, the last rank as root.
      std::vector<std::uint8_t> bytes(13, static_cast<std::uint8_t>(r));
      comm.broadcast(bytes.data(), bytes.size(), DataType::Uint8, p - 1);
      EXPECT_EQ(bytes, std::vector<std::uint8_t>(13, static_cast<std::uint8_t>(p - 1)));
    });
  }
}

TEST_P(CollectiveCalls, AllToAllDeliversEveryBlockToItsRank) {
  // Rank s's element k of its block for rank d.
  const auto element = [](int s, int d, std::uint64_t k) {
    return static_cast<std::int32_t>(s * 1000003 + d * 1009 + static_cast<int>(k));
  };
  for (int p : {1, 2, 3, 5}) {
    test::runOnWorld(GetParam(), p, [&](Communicator& comm) {
      const int r = comm.rank();
      for (std::uint64_t block : {0, 1, 3, 257, 14001}) {
        for (bool inPlace : {false, true}) {
          std::vector<std::int32_t> send(block * p), recv(block * p, -1);
          for (int d = 0; d < p; ++d) {
            for (std::uint64_t k = 0; k < block; ++k) send[d * block + k] = element(r, d, k);
          }
          std::int32_t* out = inPlace ? send.data() : recv.data();
          comm.allToAll(send.data(), out, block, DataType::Int32);
          for (int s = 0; s < p; ++s) {
            for (std::uint64_t k = 0; k < block; ++k) {
              ASSERT_EQ(out[s * block + k], element(s, r, k))
                  << "p=" << p << " block=" << block << " in place=" << inPlace << " from " << s;
            }
          }
        }
      }
    });
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, CollectiveCalls, ::testing::ValuesIn(test::worldKinds()));

TEST(CollectiveCallErrors, RanksNamingDifferentRootsGetMismatch) {
  std::vector<ErrorCode> codes(3, ErrorCode::Internal);
  test::runOnWorldCatching("inproc", 3, [&](Communicator& comm) {
    CollectiveOptions options;
    options.exec.timeout = std::chrono::milliseconds(5000);
    std::vector<float> data(10, 1.0f);
    try {
      comm.broadcast(data.data(), data.size(), DataType::Float32, comm.rank() == 0 ? 0 : 1,
                     options);
    } catch (const Error& e) {
      codes[comm.rank()] = e.code();
    }
  });
  for (ErrorCode code : codes) EXPECT_EQ(code, ErrorCode::Mismatch);
}

TEST(CollectiveCallErrors, ARootOutsideTheGroupIsRefusedBeforeAnythingMoves) {
  test::runOnWorldCatching("inproc", 3, [&](Communicator& comm) {
    std::vector<float> data(4, 1.0f);
    test::expectInvalid(
        [&] { comm.reduce(data.data(), data.data(), 4, DataType::Float32, ReduceOp::Sum, 3); },
        {"root 3", "0..2"});
    // An algorithm that does not build the collective, named by the caller, is refused.
    CollectiveOptions ring;
    ring.algorithm.name = "ring";
    ring.algorithm.ringOrder = {0, 1, 2};
    test::expectInvalid([&] { comm.broadcast(data.data(), 4, DataType::Float32, 0, ring); },
                        {"'ring'", "not broadcast"});
    // The communicator still works: nothing moved.
    comm.broadcast(data.data(), 4, DataType::Float32, 1);
    EXPECT_EQ(data, std::vector<float>(4, 1.0f));
  });
}

}  // namespace
}  // namespace ringlab
