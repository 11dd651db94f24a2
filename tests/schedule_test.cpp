// Ring schedules, ring orders, the verifier (including schedules broken on purpose) and the
// volume counter against the closed form.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "ringlab/core/error.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/schedule/holdings.hpp"
#include "ringlab/schedule/ring.hpp"
#include "ringlab/schedule/verify.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab::schedule {
namespace {

std::vector<int> randomPermutation(int p, std::mt19937& rng) {
  std::vector<int> order(p);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

TEST(ScheduleRingOrder, StrideOrbitHasPeriodMOverGcd) {
  EXPECT_EQ(strideOrbit(8, 1), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(strideOrbit(8, 2), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(strideOrbit(8, 3), (std::vector<int>{0, 3, 6, 1, 4, 7, 2, 5}));
  EXPECT_EQ(strideOrbit(12, 8).size(), 3u);
  EXPECT_EQ(strideOrbit(1, 5), (std::vector<int>{0}));
}

TEST(ScheduleRingOrder, StrideSharingAFactorIsRejectedWithTheOrbit) {
  try {
    RingOrder::fromStride(8, 2);
    FAIL() << "stride 2 at p=8 must be rejected";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    const std::string m = e.what();
    EXPECT_NE(m.find("0,2,4,6"), std::string::npos) << m;
    EXPECT_NE(m.find("period 4"), std::string::npos) << m;
  }
  EXPECT_THROW(RingOrder::fromStride(9, 6), Error);
  EXPECT_THROW(RingOrder::fromStride(8, 0), Error);
  EXPECT_EQ(RingOrder::fromStride(8, 3).ranks(), (std::vector<int>{0, 3, 6, 1, 4, 7, 2, 5}));
}

TEST(ScheduleRingOrder, ListMustBeAPermutation) {
  EXPECT_THROW(RingOrder::fromList({0, 1, 1, 3}, 4), Error);
  EXPECT_THROW(RingOrder::fromList({0, 1, 2}, 4), Error);
  EXPECT_THROW(RingOrder::fromList({0, 1, 2, 4}, 4), Error);
  EXPECT_THROW(RingOrder::fromList({0, -1, 2, 3}, 4), Error);
  EXPECT_THROW(RingOrder::parse("0,x,2,3", 4), Error);
  EXPECT_THROW(RingOrder::parse("0,,2,3", 4), Error);
  EXPECT_THROW(RingOrder::parse("", 4), Error);
  EXPECT_THROW(RingOrder::identity(0), Error);
  const RingOrder r = RingOrder::parse("2,0,3,1", 4);
  EXPECT_EQ(r.next(2), 0);
  EXPECT_EQ(r.next(1), 2);
  EXPECT_EQ(r.previous(2), 1);
  EXPECT_EQ(r.rankAt(-1), 1);
  EXPECT_EQ(r.toString(), "2,0,3,1");
}

TEST(ScheduleRing, EveryRingOrderAndOffsetVerifies) {
  std::mt19937 rng(12345);
  for (int p = 1; p <= 17; ++p) {
    for (int trial = 0; trial < 4; ++trial) {
      const RingOrder order =
          trial == 0 ? RingOrder::identity(p) : RingOrder::fromList(randomPermutation(p, rng), p);
      const int offset = static_cast<int>(rng() % 40) - 20;
      for (const Schedule& s : {ringAllReduce(order, offset), ringReduceScatter(order, offset),
                                ringAllGather(order, offset)}) {
        const Verdict v = verify(s);
        EXPECT_TRUE(v.valid) << "p=" << p << " " << collectiveName(s.collective) << ": "
                             << v.reason;
      }
      EXPECT_EQ(ringAllReduce(order, offset).steps.size(), static_cast<std::size_t>(2 * (p - 1)));
    }
  }
}

TEST(ScheduleRing, OffsetZeroGivesEveryRankItsOwnBlock) {
  std::mt19937 rng(7);
  for (int p : {2, 3, 8, 13}) {
    const Schedule s = ringReduceScatter(RingOrder::fromList(randomPermutation(p, rng), p), 0);
    for (int b = 0; b < p; ++b) EXPECT_EQ(s.blockOwner[b], b);
  }
}

TEST(ScheduleRing, EachStepEveryRankSendsOneBlockToItsSuccessor) {
  const RingOrder order = RingOrder::fromStride(8, 3);
  for (const Step& step : ringAllReduce(order).steps) {
    ASSERT_EQ(step.transfers.size(), 8u);
    std::vector<int> sends(8, 0);
    for (const Transfer& t : step.transfers) {
      EXPECT_EQ(t.dst, order.next(t.src));
      EXPECT_EQ(t.lastBlock, t.firstBlock + 1);
      ++sends[t.src];
    }
    EXPECT_EQ(sends, std::vector<int>(8, 1));
  }
}

TEST(ScheduleVerify, DroppedStepIsCaught) {
  Schedule s = ringAllReduce(RingOrder::identity(5));
  s.steps.erase(s.steps.begin() + 2);
  const Verdict v = verify(s);
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reason.find("lacks the contributions"), std::string::npos) << v.reason;
}

TEST(ScheduleVerify, DroppedAllgatherStepIsCaught) {
  Schedule s = ringAllReduce(RingOrder::identity(4));
  s.steps.pop_back();
  EXPECT_FALSE(verify(s).valid);
}

TEST(ScheduleVerify, ShortCycleIsCaught) {
  // What a stride-2 "ring" over 8 ranks would run: two disjoint 4-cycles. Each is a valid ring
  // AllReduce over its own four ranks, and wrong for the eight-rank operation.
  Schedule s = ringAllReduce(RingOrder::identity(8));
  s.steps.clear();
  const Schedule evens = ringAllReduce(RingOrder::identity(4));
  for (const Step& step : evens.steps) {
    Step twice{step.phase, {}};
    for (const Transfer& t : step.transfers) {
      for (int parity : {0, 1}) {
        Transfer u = t;
        u.src = 2 * t.src + parity;
        u.dst = 2 * t.dst + parity;
        u.firstBlock = 2 * t.firstBlock;
        u.lastBlock = 2 * t.lastBlock;
        twice.transfers.push_back(u);
      }
    }
    s.steps.push_back(twice);
  }
  const Verdict v = verify(s);
  EXPECT_FALSE(v.valid);
}

TEST(ScheduleVerify, DoubleReductionIsCaught) {
  Schedule s = ringAllReduce(RingOrder::identity(4));
  s.steps.insert(s.steps.begin() + 1, s.steps[0]);  // the same reduce twice
  const Verdict v = verify(s);
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reason.find("twice"), std::string::npos) << v.reason;
}

TEST(ScheduleVerify, MalformedTransfersAreCaught) {
  Schedule s = ringAllReduce(RingOrder::identity(4));
  s.steps[0].transfers[0].dst = s.steps[0].transfers[0].src;
  EXPECT_FALSE(verify(s).valid);
  s = ringAllReduce(RingOrder::identity(4));
  s.steps[0].transfers[0].dst = 9;
  EXPECT_FALSE(verify(s).valid);
  s = ringAllReduce(RingOrder::identity(4));
  s.steps[0].transfers[0].lastBlock = 5;
  EXPECT_FALSE(verify(s).valid);
  s = ringAllReduce(RingOrder::identity(4));
  s.steps[3].transfers[0].mode = RecvMode::Reduce;  // an allgather step that reduces
  EXPECT_FALSE(verify(s).valid);
}

TEST(ScheduleVerify, SendingDataNotYetHeldIsCaught) {
  Schedule s = ringAllGather(RingOrder::identity(4));
  std::swap(s.steps[0], s.steps[1]);
  const Verdict v = verify(s);
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reason.find("holds no data"), std::string::npos) << v.reason;
}

TEST(ScheduleVerify, BuildScheduleRejectsUnknownAlgorithm) {
  AlgorithmSpec unknown;
  unknown.name = "tree";
  EXPECT_THROW(model::buildSchedule(Collective::AllReduce, 4, unknown), Error);
  AlgorithmSpec duplicate;
  duplicate.ringOrder = {0, 0, 1, 2};
  EXPECT_THROW(model::buildSchedule(Collective::AllReduce, 4, duplicate), Error);
}

TEST(ScheduleVolume, RingAllReduceMatchesClosedFormWhenDivisible) {
  for (int p = 1; p <= 17; ++p) {
    for (std::uint64_t perChunk : {1ull, 3ull, 1024ull}) {
      const std::uint64_t count = perChunk * p;
      const VolumeReport v =
          countVolume(ringAllReduce(RingOrder::identity(p)), count, DataType::Float32);
      const double n = static_cast<double>(count * 4);
      for (const RankVolume& r : v.perRank) {
        EXPECT_EQ(static_cast<double>(r.sentBytes), ringAllReduceSendBytes(p, n)) << "p=" << p;
        EXPECT_EQ(r.receivedBytes, r.sentBytes);
        EXPECT_EQ(r.inConvention(VolumeConvention::SendRecv), 2 * r.sentBytes);
      }
      EXPECT_EQ(v.steps, static_cast<std::uint64_t>(2 * (p - 1)));
    }
  }
}

TEST(ScheduleVolume, UnevenCountsSumToTheExactTotal) {
  // Every element crosses p-1 links in each phase, so the total over ranks is exact for any count.
  for (int p : {2, 3, 7, 16}) {
    for (std::uint64_t count : {0ull, 1ull, 5ull, 1001ull}) {
      const VolumeReport v =
          countVolume(ringAllReduce(RingOrder::identity(p)), count, DataType::Int64);
      EXPECT_EQ(v.totalSentBytes, 2 * (p - 1) * count * 8) << "p=" << p << " count=" << count;
    }
  }
  EXPECT_STREQ(volumeConventionName(VolumeConvention::Send), "send");
  EXPECT_STREQ(volumeConventionName(VolumeConvention::SendRecv), "send+recv");
  EXPECT_STREQ(volumeConventionName(VolumeConvention::LinkHop), "link-hop");
}

}  // namespace
}  // namespace ringlab::schedule

namespace ringlab::schedule {
namespace {

// The states holdingsAfterEachStep passes through end where the verifier says a valid AllReduce
// must: every block of every rank holds all p contributions.
TEST(Holdings, EveryAlgorithmEndsWithEveryContributionEverywhere) {
  for (const std::string& name : model::algorithmNames()) {
    for (int p = 1; p <= 9; ++p) {
      AlgorithmSpec spec;
      spec.name = name;
      if (name == "hierarchical") {
        if (p % 3 != 0) continue;
        spec.ranksPerNode = 3;
      }
      const Schedule s = model::buildSchedule(Collective::AllReduce, p, spec);
      const std::vector<Holdings> states = holdingsAfterEachStep(s);
      ASSERT_EQ(states.size(), s.steps.size() + 1);
      const std::uint32_t all = (std::uint32_t{1} << p) - 1;
      for (int r = 0; r < p; ++r) {
        for (std::uint32_t b = 0; b < s.blocks; ++b) {
          EXPECT_EQ(states.back()[r][b], all)
              << name << " p=" << p << " rank " << r << " block " << b;
          EXPECT_EQ(states.front()[r][b], std::uint32_t{1} << r);
        }
      }
    }
  }
}

}  // namespace
}  // namespace ringlab::schedule
