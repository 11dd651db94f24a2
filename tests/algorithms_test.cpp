// The algorithms beyond the plain ring (recursive doubling, Rabenseifner, binomial tree,
// multi-ring, hierarchical): every schedule verified at p = 1..33 with its closed-form step count
// and volume, broken copies caught by the verifier, bad parameters rejected with a clear message,
// and then every algorithm run end to end over the in-process transport against a serial
// reference.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "ringlab/communicator.hpp"
#include "ringlab/core/check_data.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/schedule/multi_ring.hpp"
#include "ringlab/schedule/ring.hpp"
#include "ringlab/schedule/verify.hpp"
#include "ringlab/schedule/volume.hpp"
#include "test_support.hpp"

namespace ringlab {
namespace {

using schedule::AlgorithmSpec;
using schedule::Collective;
using schedule::Schedule;

constexpr int kMaxP = 33;

std::vector<int> divisorsOf(int p) {
  std::vector<int> out;
  for (int d = 1; d <= p; ++d) {
    if (p % d == 0) out.push_back(d);
  }
  return out;
}

int lg(int p) {
  return std::bit_width(static_cast<unsigned>(p)) - 1;
}  // floor(lg p)
int ceilLg(int p) {
  return std::bit_width(static_cast<unsigned>(p - 1));
}  // ceil(lg p)
bool powerOfTwo(int p) {
  return std::has_single_bit(static_cast<unsigned>(p));
}

AlgorithmSpec spec(const std::string& name) {
  AlgorithmSpec s;
  s.name = name;
  return s;
}
AlgorithmSpec multiRing(int k) {
  AlgorithmSpec s = spec("multi_ring");
  s.channels = k;
  return s;
}
AlgorithmSpec hierarchical(int ranksPerNode) {
  AlgorithmSpec s = spec("hierarchical");
  s.ranksPerNode = ranksPerNode;
  return s;
}

// Every (algorithm, parameters) combination the schedule tests cover at p.
std::vector<AlgorithmSpec> specsAt(int p) {
  std::vector<AlgorithmSpec> specs = {spec("ring"), spec("recursive_doubling"),
                                      spec("rabenseifner"), spec("binomial_tree")};
  for (int k = 1; k <= 4; ++k) specs.push_back(multiRing(k));
  for (int l : divisorsOf(p)) specs.push_back(hierarchical(l));
  return specs;
}

std::string describe(const AlgorithmSpec& s, int p) {
  std::string out = s.name + " p=" + std::to_string(p);
  if (s.name == "multi_ring") out += " k=" + std::to_string(s.channels);
  if (s.name == "hierarchical") out += " l=" + std::to_string(s.ranksPerNode);
  return out;
}

std::size_t expectedSteps(const AlgorithmSpec& s, int p) {
  const int fold = powerOfTwo(p) ? 0 : 2;
  if (s.name == "ring" || s.name == "multi_ring") return 2 * (p - 1);
  if (s.name == "recursive_doubling") return lg(p) + fold;
  if (s.name == "rabenseifner") return 2 * lg(p) + fold;
  if (s.name == "binomial_tree") return 2 * ceilLg(p);
  const int l = s.ranksPerNode, m = p / l;
  return 2 * (l - 1) + 2 * (m - 1);
}

// ---------------------------------------------------------------------------------------------
// Schedules

TEST(AlgoSchedule, EveryAlgorithmVerifiesWithItsClosedFormStepCount) {
  for (int p = 1; p <= kMaxP; ++p) {
    for (const AlgorithmSpec& s : specsAt(p)) {
      const Schedule sched = model::buildSchedule(Collective::AllReduce, p, s);
      const schedule::Verdict v = schedule::verify(sched);
      EXPECT_TRUE(v.valid) << describe(s, p) << ": " << v.reason;
      EXPECT_EQ(sched.steps.size(), expectedSteps(s, p)) << describe(s, p);
      EXPECT_EQ(sched.algorithm, s.name);
      EXPECT_EQ(sched.ranks, p);
    }
  }
}

TEST(AlgoSchedule, BlockLayouts) {
  for (int p = 1; p <= kMaxP; ++p) {
    const auto blocks = [&](const AlgorithmSpec& s) {
      return model::buildSchedule(Collective::AllReduce, p, s).blocks;
    };
    EXPECT_EQ(blocks(spec("recursive_doubling")), 1u);
    EXPECT_EQ(blocks(spec("binomial_tree")), 1u);
    EXPECT_EQ(blocks(spec("rabenseifner")), std::bit_floor(static_cast<unsigned>(p))) << p;
    EXPECT_EQ(blocks(multiRing(3)), 3u * p);
    EXPECT_EQ(blocks(hierarchical(1)), static_cast<unsigned>(p));
  }
}

TEST(AlgoSchedule, RabenseifnerHalvesWindowsExactly) {
  // Every transfer of a step moves the same number of blocks: p'/2, p'/4, ..., 1, then back up.
  for (int p : {8, 13, 16, 33}) {
    const Schedule s = model::buildSchedule(Collective::AllReduce, p, spec("rabenseifner"));
    for (const schedule::Step& step : s.steps) {
      if (step.phase.rfind("fold", 0) == 0) continue;
      const std::uint32_t width =
          step.transfers.front().lastBlock - step.transfers.front().firstBlock;
      for (const schedule::Transfer& t : step.transfers)
        EXPECT_EQ(t.lastBlock - t.firstBlock, width);
      EXPECT_EQ(step.transfers.size(), std::bit_floor(static_cast<unsigned>(p)));
    }
  }
}

TEST(AlgoSchedule, MultiRingChannelsRunInTheSameStepsOnDisjointBlocks) {
  for (int p : {2, 5, 8}) {
    for (int k = 1; k <= 4; ++k) {
      const Schedule s = model::buildSchedule(Collective::AllReduce, p, multiRing(k));
      for (const schedule::Step& step : s.steps) {
        ASSERT_EQ(step.transfers.size(), static_cast<std::size_t>(k * p));
        std::vector<int> perChannel(k, 0);
        for (const schedule::Transfer& t : step.transfers) {
          EXPECT_EQ(t.lastBlock, t.firstBlock + 1);
          ++perChannel[t.firstBlock / p];
        }
        EXPECT_EQ(perChannel, std::vector<int>(k, p));
      }
    }
  }
}

TEST(AlgoSchedule, MultiRingDerivedOrdersFollowTheDocumentedRule) {
  using schedule::RingOrder;
  const std::vector<RingOrder> eight = schedule::multiRingOrders(8, 5, {}, {});
  EXPECT_EQ(eight[0].toString(), "0,1,2,3,4,5,6,7");
  EXPECT_EQ(eight[1].toString(), "0,7,6,5,4,3,2,1");
  EXPECT_EQ(eight[2].toString(),
            "0,3,6,1,4,7,2,5");  // stride 3, the only 2 <= a < 4 coprime with 8
  EXPECT_EQ(eight[3].toString(), "0,5,2,7,4,1,6,3");    // its reverse
  EXPECT_EQ(eight[4].toString(), eight[0].toString());  // then the list repeats
  const std::vector<RingOrder> seven = schedule::multiRingOrders(7, 6, {}, {});
  EXPECT_EQ(seven[2].toString(), "0,2,4,6,1,3,5");
  EXPECT_EQ(seven[4].toString(), "0,3,6,2,5,1,4");
  // A base order is walked, not replaced: channel 1 reverses it, channel 2 strides through it.
  const std::vector<RingOrder> based = schedule::multiRingOrders(5, 3, {}, {4, 2, 0, 1, 3});
  EXPECT_EQ(based[0].toString(), "4,2,0,1,3");
  EXPECT_EQ(based[1].toString(), "4,3,1,0,2");
  EXPECT_EQ(based[2].toString(), "4,0,3,2,1");
  const std::vector<RingOrder> given = schedule::multiRingOrders(3, 2, {{2, 1, 0}, {1, 0, 2}}, {});
  EXPECT_EQ(given[0].toString(), "2,1,0");
  EXPECT_EQ(given[1].toString(), "1,0,2");
}

TEST(AlgoSchedule, MultiRingWithExplicitOrdersAndOffsetVerifies) {
  std::mt19937 rng(99);
  for (int p = 1; p <= kMaxP; p += 4) {
    AlgorithmSpec s = multiRing(3);
    for (int c = 0; c < 3; ++c) s.channelOrders.push_back(test::shuffledOrder(p, rng));
    s.ownershipOffset = static_cast<int>(rng() % 9) - 4;
    EXPECT_TRUE(schedule::verify(model::buildSchedule(Collective::AllReduce, p, s)).valid) << p;
  }
}

TEST(AlgoSchedule, HierarchicalKeepsInterNodeTrafficWithinALocalIndex) {
  const int p = 12, l = 4;
  const Schedule s = model::buildSchedule(Collective::AllReduce, p, hierarchical(l));
  for (const schedule::Step& step : s.steps) {
    for (const schedule::Transfer& t : step.transfers) {
      if (step.phase.rfind("intra-node", 0) == 0) {
        EXPECT_EQ(t.src / l, t.dst / l) << step.phase;
        EXPECT_EQ(t.lastBlock - t.firstBlock, static_cast<std::uint32_t>(p / l));  // a whole shard
      } else {
        EXPECT_EQ(t.src % l, t.dst % l) << step.phase;
        EXPECT_EQ(t.firstBlock / (p / l), static_cast<std::uint32_t>(t.src % l));  // its own shard
      }
    }
  }
}

TEST(AlgoSchedule, RingOrderHelpers) {
  using schedule::RingOrder;
  const RingOrder r = RingOrder::fromList({3, 1, 4, 0, 2}, 5);
  EXPECT_EQ(r.reversed().toString(), "3,2,0,4,1");
  EXPECT_EQ(r.strided(2).toString(), "3,4,2,1,0");
  EXPECT_EQ(RingOrder::identity(8).strided(3).ranks(), RingOrder::fromStride(8, 3).ranks());
  EXPECT_THROW(RingOrder::identity(8).strided(2), Error);
  EXPECT_EQ(RingOrder::identity(1).reversed().toString(), "0");
}

// ---------------------------------------------------------------------------------------------
// Volumes, send convention, against closed forms where they are exact

double sentBytes(const schedule::VolumeReport& v, int rank) {
  return static_cast<double>(v.perRank[rank].sentBytes);
}

TEST(AlgoVolume, PerRankClosedForms) {
  for (int p = 1; p <= kMaxP; ++p) {
    // Divisible by every block count used: p, p', 4p (multi_ring k <= 4), times a few elements.
    const std::uint64_t count = 12ull * p * std::bit_floor(static_cast<unsigned>(p)) * 7;
    const double n = static_cast<double>(count * 4);
    for (const AlgorithmSpec& s : specsAt(p)) {
      const Schedule sched = model::buildSchedule(Collective::AllReduce, p, s);
      const schedule::VolumeReport v = schedule::countVolume(sched, count, DataType::Float32);
      double expected = -1;  // per rank; -1: no per-rank closed form
      if (s.name == "ring" || s.name == "multi_ring")
        expected = schedule::ringAllReduceSendBytes(p, n);
      if (s.name == "hierarchical") {
        const int l = s.ranksPerNode, m = p / l;
        expected = 2.0 * (l - 1) / l * n + 2.0 * (m - 1) / p * n;
      }
      if (powerOfTwo(p) && s.name == "rabenseifner") expected = 2.0 * (p - 1) / p * n;
      if (powerOfTwo(p) && s.name == "recursive_doubling") expected = lg(p) * n;
      if (expected < 0) continue;
      for (int r = 0; r < p; ++r)
        EXPECT_DOUBLE_EQ(sentBytes(v, r), expected) << describe(s, p) << " rank " << r;
    }
  }
}

TEST(AlgoVolume, TotalsForAnyCount) {
  for (int p = 1; p <= kMaxP; ++p) {
    const int core = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
    const int extra = p - core;
    for (std::uint64_t count : {0ull, 1ull, 97ull, 1031ull}) {
      const auto total = [&](const std::string& name) {
        return schedule::countVolume(model::buildSchedule(Collective::AllReduce, p, spec(name)),
                                     count, DataType::Int64)
            .totalSentBytes;
      };
      const std::uint64_t n = count * 8;
      // Each non-root sends the vector once up the tree and receives it once down.
      EXPECT_EQ(total("binomial_tree"), 2 * (p - 1) * n) << p;
      // p' ranks send n per round, and the fold moves n per pair each way.
      EXPECT_EQ(total("recursive_doubling"), (core * lg(core) + 2 * extra) * n) << p;
      if (count % core == 0) {
        EXPECT_EQ(total("rabenseifner"), (2 * (core - 1) + 2 * extra) * n) << p;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The verifier catches broken versions of every algorithm

TEST(AlgoVerify, DroppingAnyStepIsCaught) {
  for (int p : {2, 3, 5, 6, 8, 12, 13, 16, 17}) {
    for (const AlgorithmSpec& s : specsAt(p)) {
      const Schedule whole = model::buildSchedule(Collective::AllReduce, p, s);
      for (std::size_t k = 0; k < whole.steps.size(); ++k) {
        Schedule broken = whole;
        broken.steps.erase(broken.steps.begin() + static_cast<long>(k));
        EXPECT_FALSE(schedule::verify(broken).valid) << describe(s, p) << " without step " << k + 1;
      }
    }
  }
}

TEST(AlgoVerify, CopyInsteadOfReduceIsCaught) {
  for (int p : {4, 6, 12}) {
    for (const AlgorithmSpec& s : specsAt(p)) {
      Schedule broken = model::buildSchedule(Collective::AllReduce, p, s);
      if (broken.steps.empty()) continue;
      broken.steps.front().transfers.front().mode = schedule::RecvMode::Copy;
      EXPECT_FALSE(schedule::verify(broken).valid) << describe(s, p);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Names and parameters

std::string errorOf(Collective c, int p, const AlgorithmSpec& s) {
  try {
    model::buildSchedule(c, p, s);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << describe(s, p) << " was accepted";
  return "";
}

void expectMentions(const std::string& message, std::initializer_list<const char*> words) {
  for (const char* w : words)
    EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
}

TEST(AlgoBuild, NamesAndDispatch) {
  EXPECT_EQ(model::algorithmNames(),
            (std::vector<std::string>{"ring", "recursive_doubling", "rabenseifner", "binomial_tree",
                                      "multi_ring", "hierarchical"}));
  expectMentions(errorOf(Collective::AllReduce, 4, spec("tree")),
                 {"'tree'", "ring", "recursive_doubling", "rabenseifner", "binomial_tree",
                  "multi_ring", "hierarchical"});
}

TEST(AlgoBuild, BadParametersAreRejectedNamingTheValue) {
  expectMentions(errorOf(Collective::AllReduce, 12, hierarchical(5)),
                 {"5", "12", "1, 2, 3, 4, 6, 12"});
  expectMentions(errorOf(Collective::AllReduce, 12, hierarchical(-2)), {"-2"});
  expectMentions(errorOf(Collective::AllReduce, 12, spec("hierarchical")), {"ranks per node"});
  expectMentions(errorOf(Collective::AllReduce, 4, multiRing(0)), {"0", "channels"});
  expectMentions(errorOf(Collective::AllReduce, 4, multiRing(schedule::kMaxChannels + 1)),
                 {std::to_string(schedule::kMaxChannels + 1).c_str()});
  AlgorithmSpec wrongCount = multiRing(2);
  wrongCount.channelOrders = {{0, 1, 2, 3}};
  expectMentions(errorOf(Collective::AllReduce, 4, wrongCount), {"2 channels", "1 channel orders"});
  AlgorithmSpec notPermutation = multiRing(2);
  notPermutation.channelOrders = {{0, 1, 2, 3}, {0, 1, 1, 3}};
  expectMentions(errorOf(Collective::AllReduce, 4, notPermutation), {"0,1,1,3"});
  AlgorithmSpec both = multiRing(2);
  both.ringOrder = {0, 1, 2, 3};
  both.channelOrders = {{0, 1, 2, 3}, {3, 2, 1, 0}};
  expectMentions(errorOf(Collective::AllReduce, 4, both), {"both"});
  // Parameters the algorithm does not take are refused, not dropped.
  AlgorithmSpec ringWithChannels = spec("ring");
  ringWithChannels.channels = 2;
  expectMentions(errorOf(Collective::AllReduce, 4, ringWithChannels),
                 {"'ring'", "2", "multi_ring"});
  AlgorithmSpec treeWithOrder = spec("binomial_tree");
  treeWithOrder.ringOrder = {1, 0, 2, 3};
  expectMentions(errorOf(Collective::AllReduce, 4, treeWithOrder), {"binomial_tree", "ring order"});
  AlgorithmSpec ringPerNode = spec("ring");
  ringPerNode.ranksPerNode = 2;
  expectMentions(errorOf(Collective::AllReduce, 4, ringPerNode), {"2", "hierarchical"});
  EXPECT_THROW(model::buildSchedule(Collective::AllReduce, 0, spec("binomial_tree")), Error);
}

TEST(AlgoBuild, OnlyRingBuildsReduceScatterAndAllgather) {
  for (const AlgorithmSpec& s : specsAt(4)) {
    for (Collective c : {Collective::ReduceScatter, Collective::AllGather}) {
      if (s.name == "ring") {
        EXPECT_TRUE(schedule::verify(model::buildSchedule(c, 4, s)).valid);
      } else {
        const std::string refused = std::string("not ") + schedule::collectiveName(c);
        expectMentions(errorOf(c, 4, s), {s.name.c_str(), refused.c_str(), "use ring"});
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// End to end: ranks as threads over the in-process transport

using test::Bytes;
using test::Case;

// int32: any bit pattern (sum wraps). float32: values in [-4, 4), so that rounding differs with
// the order of the sum and a rank that combined in another order would differ bitwise.
Bytes randomInput(DataType type, std::uint64_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  Bytes data(count * 4);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint32_t bits = rng();
    const float value = dist(rng);
    std::memcpy(data.data() + i * 4,
                type == DataType::Int32 ? static_cast<const void*>(&bits)
                                        : static_cast<const void*>(&value),
                4);
  }
  return data;
}

std::string describeAlgorithmCase(const Case& c, int p) {
  return describe(c.options.algorithm, p) + " " + dataTypeName(c.type) + " " + reduceOpName(c.op) +
         " count=" + std::to_string(c.count) + (c.inPlace ? " in place" : " out of place") +
         " segment=" + std::to_string(c.options.exec.segmentBytes);
}

// int32: exact against the serial fold (wrapping sum and max are associative and commutative).
// float32: max exact; sum within p u sum|x| of the float64 sum, as any summation order is.
void checkResult(const Case& c, int p, const std::vector<Bytes>& inputs, const Bytes& out) {
  if (c.type == DataType::Int32 || c.op == ReduceOp::Max) {
    test::checkExact(c, p, inputs, out, describeAlgorithmCase(c, p));
    return;
  }
  const auto bound = [&](const test::Float64Element& e) {
    return p * test::unitRoundoff(DataType::Float32) * e.magnitude;
  };
  test::checkAgainstFloat64(c, p, inputs, out, bound, describeAlgorithmCase(c, p));
}

void runAlgorithmCases(int p, const std::vector<Case>& cases) {
  test::runCases(
      p, cases,
      [](const Case& c, std::uint32_t seed) { return randomInput(c.type, c.count, seed); },
      checkResult, [](const Case& c, int p) { return describeAlgorithmCase(c, p); });
}

class AlgoExec : public ::testing::TestWithParam<std::string> {};

TEST_P(AlgoExec, AllreduceMatchesTheReference) {
  const std::string name = GetParam();
  for (int p : {1, 2, 3, 5, 6, 7, 8, 12, 13}) {
    std::mt19937 rng(7000 + p);
    const auto n = static_cast<std::uint64_t>(p);
    const std::vector<int> divisors = divisorsOf(p);
    std::vector<Case> cases;
    std::uint32_t seed = 0;
    for (DataType type : {DataType::Int32, DataType::Float32}) {
      for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max}) {
        for (std::uint64_t count : std::vector<std::uint64_t>{0, 1, n - 1, n + 1, 97, 1031}) {
          for (bool inPlace : {false, true}) {
            Case c{type, op, count, inPlace, {}, ++seed};
            c.options.algorithm.name = name;
            if (name == "multi_ring") {
              c.options.algorithm.channels = 1 + static_cast<int>(seed % 4);
              c.options.algorithm.ownershipOffset = static_cast<int>(rng() % 5) - 2;
            }
            if (name == "hierarchical")
              c.options.algorithm.ranksPerNode = divisors[seed % divisors.size()];
            if (name == "ring" && seed % 2)
              c.options.algorithm.ringOrder = test::shuffledOrder(p, rng);
            // Tiny forced segments (one and three elements) on a third of the cases each.
            const std::uint64_t segments[] = {4, 12, exec::kDefaultSegmentBytes};
            c.options.exec.segmentBytes = segments[seed % 3];
            c.options.exec.pipelineDepth = 1 + static_cast<int>(seed % 3);
            cases.push_back(c);
          }
        }
      }
    }
    runAlgorithmCases(p, cases);
  }
}

// Small integer values in every dtype (prod: ones and twos), so that every op's result is exact
// whatever order an algorithm combines contributions in: a serial fold is then a bitwise reference.
Bytes smallIntegerInput(DataType type, ReduceOp op, std::uint64_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes data(count * dataTypeSize(type));
  const bool isUnsigned =
      type == DataType::Uint8 || type == DataType::Uint32 || type == DataType::Uint64;
  for (std::uint64_t i = 0; i < count; ++i) {
    const int v = op == ReduceOp::Prod ? 1 + static_cast<int>(rng() % 4 == 0)
                                       : static_cast<int>(rng() % 9) - (isUnsigned ? 0 : 4);
    storeValue(type, data.data(), i, v);
  }
  return data;
}

TEST_P(AlgoExec, EveryDtypeAndOpIsExact) {
  const std::string name = GetParam();
  for (int p : {5, 6}) {
    std::vector<Case> cases;
    std::uint32_t seed = 100;
    for (DataType type : kAllDataTypes) {
      for (ReduceOp op : kAllReduceOps) {
        for (std::uint64_t count : {3ull, 97ull}) {
          Case c{type, op, count, seed % 2 == 0, {}, ++seed};
          c.options.algorithm.name = name;
          if (name == "multi_ring") c.options.algorithm.channels = 2;
          if (name == "hierarchical") c.options.algorithm.ranksPerNode = p == 6 ? 3 : 5;
          c.options.exec.segmentBytes = seed % 2 ? 8 : exec::kDefaultSegmentBytes;
          cases.push_back(c);
        }
      }
    }
    test::runCases(
        p, cases,
        [](const Case& c, std::uint32_t s) { return smallIntegerInput(c.type, c.op, c.count, s); },
        [](const Case& c, int ranks, const std::vector<Bytes>& inputs, const Bytes& out) {
          test::checkExact(c, ranks, inputs, out, describe(c, ranks));
        },
        [](const Case& c, int ranks) { return describe(c, ranks); });
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, AlgoExec,
                         ::testing::Values("ring", "recursive_doubling", "rabenseifner",
                                           "binomial_tree", "multi_ring", "hierarchical"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace ringlab
