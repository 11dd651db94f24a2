// The executor and Communicator on real buffers over the in-process transport: every dtype and op,
// p = 1..17, awkward counts, random ring orders and ownership offsets, tiny forced segments,
// in place and out of place. Integers are compared exactly with a serial reference; floats
// bitwise across ranks and within a stated bound of a float64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>

#include "exec/attribution.hpp"
#include "ringlab/communicator.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/half.hpp"
#include "ringlab/exec/executor.hpp"
#include "ringlab/transport/inproc.hpp"
#include "test_support.hpp"

namespace ringlab {
namespace {

using test::Bytes;
using test::Case;

Bytes randomInput(DataType type, ReduceOp op, std::uint64_t count, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  Bytes data(count * dataTypeSize(type));
  for (std::uint64_t i = 0; i < count; ++i) {
    std::byte* at = data.data() + i * dataTypeSize(type);
    if (!isFloating(type)) {
      const std::uint64_t bits = rng();
      std::memcpy(at, &bits, dataTypeSize(type));  // any bit pattern: wrapping is exercised
      continue;
    }
    // Products stay in range for p <= 17 even in float16.
    std::uniform_real_distribution<double> dist(op == ReduceOp::Prod ? 0.8 : -4.0,
                                                op == ReduceOp::Prod ? 1.25 : 4.0);
    const double v = dist(rng);
    switch (type) {
      case DataType::Float16: {
        const auto h = floatToHalf(static_cast<float>(v));
        std::memcpy(at, &h, 2);
        break;
      }
      case DataType::Bfloat16: {
        const auto b = floatToBfloat16(static_cast<float>(v));
        std::memcpy(at, &b, 2);
        break;
      }
      case DataType::Float32: {
        const auto f = static_cast<float>(v);
        std::memcpy(at, &f, 4);
        break;
      }
      default:
        std::memcpy(at, &v, 8);
        break;
    }
  }
  return data;
}

std::string describe(const Case& c, int p) {
  return std::string(dataTypeName(c.type)) + " " + reduceOpName(c.op) + " p=" + std::to_string(p) +
         " count=" + std::to_string(c.count);
}

// Checks one rank's AllReduce output against the inputs of all ranks: integers exactly against
// the serial fold, floats within a bound of the float64 reference.
void checkAgainstReference(const Case& c, int p, const std::vector<Bytes>& inputs,
                           const Bytes& out) {
  if (!isFloating(c.type)) {
    test::checkExact(c, p, inputs, out, describe(c, p));
    return;
  }
  // The float64 reference itself rounds: allow its own (p-1) roundings on top of the result's.
  const double u = test::unitRoundoff(c.type) + std::ldexp(1.0, -53);
  const auto bound = [&](const test::Float64Element& e) {
    switch (c.op) {
      case ReduceOp::Sum:
        return (p - 1) * u * e.magnitude;
      case ReduceOp::Avg:
        return (p - 1) * u * e.magnitude / p + u * std::fabs(e.exact);
      case ReduceOp::Prod:
        return 1.01 * (p - 1) * u * std::fabs(e.exact);
      default:
        return 0.0;  // min and max round nothing: exact
    }
  };
  test::checkAgainstFloat64(c, p, inputs, out, bound, describe(c, p));
}

void runCases(int p, const std::vector<Case>& cases) {
  test::runCases(
      p, cases,
      [](const Case& c, std::uint32_t seed) { return randomInput(c.type, c.op, c.count, seed); },
      checkAgainstReference, describe);
}

class ExecAllReduce : public ::testing::TestWithParam<int> {};

TEST_P(ExecAllReduce, EveryDtypeOpCountOrderAndSegment) {
  const int p = GetParam();
  std::mt19937 rng(1000 + p);
  const auto n = static_cast<std::uint64_t>(p);
  // Fewer counts at large p: every case costs 2(p-1) steps on p threads sharing two cores.
  const std::vector<std::uint64_t> counts =
      p <= 8 ? std::vector<std::uint64_t>{0, 1, n - 1, n, n + 1, 97, 1031}
             : std::vector<std::uint64_t>{1, n - 1, n + 1, 97};
  std::vector<Case> cases;
  std::uint32_t seed = 0;
  for (DataType type : kAllDataTypes) {
    for (ReduceOp op : kAllReduceOps) {
      for (std::uint64_t count : counts) {
        Case c{type, op, count, (seed % 2) == 1, {}, ++seed};
        c.options.algorithm.ringOrder = test::shuffledOrder(p, rng);
        c.options.algorithm.ownershipOffset = static_cast<int>(rng() % 7) - 3;
        // Tiny forced segments (one or three elements) on some cases, default on the rest.
        const std::uint64_t segmentChoices[] = {1, 3 * dataTypeSize(type),
                                                exec::kDefaultSegmentBytes};
        c.options.exec.segmentBytes = segmentChoices[seed % 3];
        c.options.exec.pipelineDepth = 1 + static_cast<int>(seed % 4);
        cases.push_back(c);
      }
    }
  }
  runCases(p, cases);
}

INSTANTIATE_TEST_SUITE_P(Ranks, ExecAllReduce,
                         ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17));

TEST(ExecAllReduceLarge, FewMebibytesWithSmallSegments) {
  // A few MiB, count not divisible by p, segments much smaller than a chunk: the pipelined path.
  for (int p : {3, 4}) {
    std::vector<Case> cases;
    for (DataType type : {DataType::Int32, DataType::Float32, DataType::Bfloat16}) {
      Case c{type, ReduceOp::Sum, (3u << 20) / 4 + 7, p == 3, {}, static_cast<std::uint32_t>(p)};
      c.options.exec.segmentBytes = 64 * 1024;
      cases.push_back(c);
    }
    runCases(p, cases);
  }
}

TEST(ExecCommunicator, ReduceScatterAndAllgatherFollowNcclLayout) {
  for (int p : {1, 2, 5, 8}) {
    const std::uint64_t block = 37;
    test::runRanks(p, [&](int rank, Communicator& comm) {
      std::vector<std::int64_t> send(block * p), recv(block, -1);
      for (std::uint64_t i = 0; i < send.size(); ++i)
        send[i] = static_cast<std::int64_t>(i * 1000 + rank);
      comm.reduceScatter(send.data(), recv.data(), block, DataType::Int64, ReduceOp::Sum);
      const std::int64_t rankSum = static_cast<std::int64_t>(p) * (p - 1) / 2;
      for (std::uint64_t i = 0; i < block; ++i) {
        const std::uint64_t global = rank * block + i;
        ASSERT_EQ(recv[i], static_cast<std::int64_t>(global * 1000) * p + rankSum)
            << "rank " << rank;
      }
      std::vector<std::int64_t> mine(block, rank + 1), gathered(block * p, -1);
      comm.allgather(mine.data(), gathered.data(), block, DataType::Int64);
      for (std::uint64_t i = 0; i < gathered.size(); ++i)
        ASSERT_EQ(gathered[i], static_cast<std::int64_t>(i / block) + 1);
      // In place, as NCCL allows: the send block already sits at offset rank*block of recv.
      std::vector<std::int64_t> inPlace(block * p, -1);
      std::fill_n(inPlace.begin() + rank * block, block, 10 * rank);
      comm.allgather(inPlace.data() + rank * block, inPlace.data(), block, DataType::Int64);
      for (std::uint64_t i = 0; i < inPlace.size(); ++i)
        ASSERT_EQ(inPlace[i], static_cast<std::int64_t>(10 * (i / block)));
    });
  }
}

TEST(ExecCommunicator, ReduceScatterRejectsOffset) {
  test::runRanks(2, [&](int, Communicator& comm) {
    CollectiveOptions options;
    options.algorithm.ownershipOffset = 1;
    std::vector<float> send(4), recv(2);
    EXPECT_THROW(
        comm.reduceScatter(send.data(), recv.data(), 2, DataType::Float32, ReduceOp::Sum, options),
        Error);
  });
}

TEST(ExecExecutor, SeveralReceivesIntoOneBlockInOneStepAccumulate) {
  // Ranks 1..3 send to rank 0 in one step, which reduces all three into its block, out of place
  // (the second and third must add onto the first, not onto the input again), then rank 0 sends
  // the sum back: a reduce-then-broadcast, found by running one through the registry.
  schedule::Schedule s;
  s.algorithm = "gather_reduce";
  s.ranks = 4;
  s.blocks = 1;
  s.steps.push_back({"reduce", {}});
  s.steps.push_back({"broadcast", {}});
  for (int r = 1; r < 4; ++r) {
    s.steps[0].transfers.push_back({r, 0, 0, 1, schedule::RecvMode::Reduce});
    s.steps[1].transfers.push_back({0, r, 0, 1, schedule::RecvMode::Copy});
  }
  transport::InprocWorld world(4);
  std::vector<std::thread> threads;
  for (int r = 0; r < 4; ++r) {
    threads.emplace_back([&, r] {
      exec::Executor executor(world.transport(r));
      const exec::RankPlan plan = exec::planForRank(s, r, 1001);
      EXPECT_EQ(plan.steps.at(0).bufferReceives, r == 0);
      std::vector<std::int32_t> in(1001), out(1001, -1);
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int32_t>(i * (r + 1));
      exec::ExecOptions options;
      options.segmentBytes = 40;  // many segments from each sender
      executor.run(plan, {DataType::Int32, ReduceOp::Sum}, in.data(), out.data(), options,
                   std::chrono::steady_clock::now() + options.timeout);
      for (std::size_t i = 0; i < out.size(); ++i)
        ASSERT_EQ(out[i], static_cast<std::int32_t>(i * 10)) << "rank " << r << " element " << i;
    });
  }
  for (auto& t : threads) t.join();
}

TEST(ExecExecutor, StepThatReducesWhatItSendsIsBuffered) {
  // Both ranks send their whole vector and reduce the peer's into it in the same step (recursive
  // doubling at p = 2): sends must read the values from before the step.
  schedule::Schedule s;
  s.algorithm = "exchange";
  s.ranks = 2;
  s.blocks = 2;
  s.steps.push_back(
      {"exchange",
       {{0, 1, 0, 2, schedule::RecvMode::Reduce}, {1, 0, 0, 2, schedule::RecvMode::Reduce}}});
  transport::InprocWorld world(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      exec::Executor executor(world.transport(r));
      const exec::RankPlan plan = exec::planForRank(s, r, 1001);
      EXPECT_TRUE(plan.steps.at(0).bufferReceives);
      std::vector<std::int32_t> data(1001);
      for (std::size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<std::int32_t>(i + 100000 * r);
      exec::ExecOptions options;
      options.segmentBytes = 40;  // many segments in flight
      options.pipelineDepth = 2;
      executor.run(plan, {DataType::Int32, ReduceOp::Sum}, data.data(), data.data(), options,
                   std::chrono::steady_clock::now() + options.timeout);
      for (std::size_t i = 0; i < data.size(); ++i)
        ASSERT_EQ(data[i], static_cast<std::int32_t>(2 * i + 100000));
    });
  }
  for (auto& t : threads) t.join();
}

TEST(ExecFaults, MissingPeerTimesOut) {
  transport::InprocWorld world(2);
  Communicator comm(world.transport(0));
  CollectiveOptions options;
  options.exec.timeout = std::chrono::milliseconds(200);
  std::vector<float> data(64, 1.0f);
  try {
    comm.allreduce(data.data(), data.data(), data.size(), DataType::Float32, ReduceOp::Sum,
                   options);
    FAIL() << "rank 1 never joins: rank 0 must time out";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Timeout) << e.what();
  }
}

TEST(ExecFaults, AbortWakesWaitingRanksWithPeerLost) {
  transport::InprocWorld world(2);
  std::thread aborter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    world.abort("rank 1 crashed");
  });
  Communicator comm(world.transport(0));
  std::vector<float> data(64, 1.0f);
  try {
    comm.allreduce(data.data(), data.data(), data.size(), DataType::Float32, ReduceOp::Sum);
    FAIL() << "abort must end the wait";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::PeerLost) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank 1 crashed"), std::string::npos);
  }
  aborter.join();
}

TEST(ExecFaults, RanksDisagreeingOnCountGetMismatch) {
  transport::InprocWorld world(2);
  std::vector<ErrorCode> codes(2, ErrorCode::Internal);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      Communicator comm(world.transport(r));
      CollectiveOptions options;
      options.exec.timeout = std::chrono::milliseconds(2000);
      std::vector<float> data(100 + r, 1.0f);
      try {
        comm.allreduce(data.data(), data.data(), data.size(), DataType::Float32, ReduceOp::Sum,
                       options);
      } catch (const Error& e) {
        codes[r] = e.code();
        world.abort(e.what());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(codes[0] == ErrorCode::Mismatch || codes[1] == ErrorCode::Mismatch);
}

// Whom a rank blames (exec/attribution) when every rank is alive and answered its abort: each
// said where it stood, and the rank that stopped sending is the one the earliest waiter waits for.

using transport::PeerReport;
using transport::PeerState;
using transport::WaitPoint;

std::vector<PeerReport> answeredAt(const std::vector<WaitPoint>& points) {
  std::vector<PeerReport> reports;
  for (const WaitPoint& at : points) reports.push_back({PeerState::Answered, at});
  return reports;
}

// The rank a "stopped sending" error names ("rank 0: rank 3 stopped sending: ...", or "rank 3:
// rank 3 (this rank) stopped sending"); -1 if it names none.
int stoppedSender(const Error& e) {
  const std::string text = e.what();
  const std::size_t colon = text.find(": rank ");
  const std::size_t verb = text.find(" stopped sending");
  if (colon == std::string::npos || verb == std::string::npos || verb < colon) return -1;
  const std::string named = text.substr(colon + 7, verb - colon - 7);
  return std::stoi(named);
}

const Error kTimedOut(ErrorCode::Timeout, "rank 9: receive of 16 bytes from rank 8 timed out");

// A ring at p = 4 in which rank d dropped its message of step 0: the rank it feeds waits for it
// at step 0, the next at step 1, and so on round the ring to d itself, which waits at step 3.
// Every rank, d included, names d.
TEST(ExecAttribution, TheRankThatStoppedSendingIsNamedByEveryRankOfARing) {
  const int p = 4;
  for (int d = 0; d < p; ++d) {
    std::vector<WaitPoint> points(p);
    for (int k = 1; k <= p; ++k) {
      const int waiter = (d + k) % p;
      points[waiter] = {(waiter - 1 + p) % p, static_cast<std::uint32_t>(k - 1), 1};
    }
    for (int rank = 0; rank < p; ++rank) {
      const Error e = exec::attributeFailure(rank, kTimedOut, answeredAt(points));
      EXPECT_EQ(stoppedSender(e), d) << e.what();
      EXPECT_EQ(e.code(), ErrorCode::Timeout);
      EXPECT_NE(std::string(e.what()).find("what this rank saw first: rank 9: receive of"),
                std::string::npos)
          << e.what();
      if (rank == d) {
        EXPECT_NE(std::string(e.what()).find("(this rank) stopped sending"), std::string::npos)
            << e.what();
      }
    }
  }
}

// Waits compare by call first (modulo 2^32), then agreement rounds before the schedule's steps;
// a rank waiting for no receive (-1) is never the earliest.
TEST(ExecAttribution, EarliestIsByCallThenAgreementRoundThenStep) {
  // Rank 1 waits in an earlier call than rank 2, which waits at an earlier step.
  EXPECT_EQ(stoppedSender(exec::attributeFailure(
                0, kTimedOut, answeredAt({{-1, 0, 5}, {0, 9, 5}, {3, 0, 6}, {-1, 0, 6}}))),
            0);
  // Across the wrap of the call count: 0xffffffff comes before 0.
  EXPECT_EQ(stoppedSender(exec::attributeFailure(
                0, kTimedOut, answeredAt({{-1, 0, 0}, {0, 9, 0xffffffffu}, {3, 0, 0}, {-1}}))),
            0);
  // An agreement round comes before step 0.
  EXPECT_EQ(
      stoppedSender(exec::attributeFailure(
          0, kTimedOut, answeredAt({{-1}, {0, 0, 1}, {3, exec::kAgreementTag + 1, 1}, {-1}}))),
      3);
  // Two ranks waiting at the same earliest step: both their senders are named.
  const Error both =
      exec::attributeFailure(0, kTimedOut, answeredAt({{3, 2, 1}, {2, 2, 1}, {1, 4, 1}, {-1}}));
  EXPECT_NE(std::string(both.what()).find("ranks 2, 3 stopped sending"), std::string::npos)
      << both.what();
}

// The rule needs every rank's word and a timeout: otherwise the first error stands, and gone or
// silent ranks are named as before.
TEST(ExecAttribution, WithoutEveryRanksPositionTheFirstErrorStands) {
  const std::vector<WaitPoint> ring = {{3, 3, 1}, {0, 0, 1}, {1, 1, 1}, {2, 2, 1}};
  std::vector<PeerReport> unsaid = answeredAt(ring);
  unsaid[2].waiting.reset();  // its abort did not say where it stood
  EXPECT_STREQ(exec::attributeFailure(0, kTimedOut, unsaid).what(), kTimedOut.what());
  std::vector<PeerReport> unknown = answeredAt(ring);
  unknown[3] = {PeerState::Unknown, std::nullopt};
  EXPECT_STREQ(exec::attributeFailure(0, kTimedOut, unknown).what(), kTimedOut.what());
  const Error mismatch(ErrorCode::Mismatch, "rank 0 called allreduce of 4 but rank 1 of 5");
  EXPECT_STREQ(exec::attributeFailure(0, mismatch, answeredAt(ring)).what(), mismatch.what());
  EXPECT_STREQ(exec::attributeFailure(0, kTimedOut, answeredAt({{-1}, {-1}, {-1}, {-1}})).what(),
               kTimedOut.what());
  std::vector<PeerReport> silent = answeredAt(ring);
  silent[2] = {PeerState::Silent, std::nullopt};
  const Error e = exec::attributeFailure(0, kTimedOut, silent);
  EXPECT_NE(std::string(e.what()).find("rank 0: rank 2 is stopped or hung"), std::string::npos)
      << e.what();
}

}  // namespace
}  // namespace ringlab
