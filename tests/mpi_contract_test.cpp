// The MPI transport under a real launcher: one process per rank (`mpirun -np N` this binary),
// built once per MPI implementation. Every process runs every test, for its own rank; tests are
// collective, so all ranks run them in the same order. Rank 0 prints gtest's report; the other
// ranks print only their failures, prefixed with their rank. mpirun's exit status is non-zero
// when any rank fails.
//
// - the transport contract suite (contract_cases.hpp), one TEST_P per case at this p;
// - ranks that disagree on the call fail with Mismatch on every rank, naming both calls;
// - tag and length disagreements between two ranks fail with Mismatch, not a hang;
// - a receive nobody sends to times out naming the peer;
// - mpiAllreduce (MPI's own MPI_Allreduce) equals ringlab's allreduce bitwise for integer types.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "contract_cases.hpp"
#include "ringlab/communicator.hpp"
#include "ringlab/core/check_data.hpp"
#include "ringlab/transport/mpi.hpp"

namespace ringlab::test {
namespace {

using transport::Transport;

// The transport the contract cases share (one per process, as a program would have).
std::unique_ptr<Transport> gWorld;
int gRank = 0;
int gSize = 1;

// Tests whose ranks may fail use a fresh transport each: after a failure a transport is done.
// Connecting is collective, so it also lines the ranks up.
std::unique_ptr<Transport> freshTransport() {
  return transport::connectMpi();
}

// Every rank arrives before any leaves: an allreduce over the shared transport.
void barrier() {
  Communicator comm(*gWorld);
  std::int32_t one = 1, sum = 0;
  CollectiveOptions options;
  options.exec.timeout = std::chrono::seconds(20);
  comm.allreduce(&one, &sum, 1, DataType::Int32, ReduceOp::Sum, options);
  ASSERT_EQ(sum, gSize);
}

class MpiContract : public ::testing::TestWithParam<ContractCase> {};

TEST_P(MpiContract, ExactOnEveryRank) {
  Communicator comm(*gWorld);
  try {
    runContractCase(comm, GetParam());
  } catch (const Error& e) {
    FAIL() << "rank " << gRank << ": " << e.what();
  }
}

std::vector<ContractCase> casesForThisWorld() {
  return contractCases(gSize);
}

INSTANTIATE_TEST_SUITE_P(Cases, MpiContract, ::testing::ValuesIn(casesForThisWorld()),
                         [](const auto& info) {
                           // Counts coincide at small p (p - 1 == 1): the index keeps names unique.
                           return std::to_string(info.index) + "_" + info.param.name;
                         });

TEST(MpiTransport, RankAndSizeComeFromMpi) {
  EXPECT_EQ(gWorld->name(), "mpi");
  EXPECT_EQ(gWorld->size(), gSize);
  EXPECT_FALSE(transport::mpiLibraryVersion().empty());
  EXPECT_TRUE(transport::mpiAvailable());
}

// The last rank passes a different count. `count` below and above the size that travels inline
// with the call header, so both header paths are checked.
void expectMismatchOnEveryRank(std::uint64_t count, DataType type) {
  if (gSize < 2) GTEST_SKIP() << "needs two ranks";
  auto t = freshTransport();
  Communicator comm(*t);
  const std::uint64_t mine = gRank == gSize - 1 ? count + 1 : count;
  std::vector<std::byte> data((count + 1) * dataTypeSize(type));
  CollectiveOptions options;
  options.exec.timeout = std::chrono::seconds(20);
  try {
    comm.allreduce(data.data(), data.data(), mine, type, ReduceOp::Sum, options);
    ADD_FAILURE() << "rank " << gRank << ": ranks passed different counts, yet allreduce returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Mismatch) << "rank " << gRank << ": " << e.what();
    const std::string what = e.what();
    const std::string typeName = dataTypeName(type);
    for (std::uint64_t n : {count, count + 1}) {
      const std::string call = "allreduce of " + std::to_string(n) + " x " + typeName;
      EXPECT_NE(what.find(call), std::string::npos)
          << "rank " << gRank << " does not name '" << call << "': " << what;
    }
  }
}

TEST(MpiTransport, DifferentCountsFailOnEveryRankNamingBoth) {
  expectMismatchOnEveryRank(10, DataType::Int32);
}

TEST(MpiTransport, DifferentLargeCountsFailOnEveryRankNamingBoth) {
  expectMismatchOnEveryRank(100000, DataType::Float32);
}

TEST(MpiTransport, DifferentOpsFailOnEveryRank) {
  if (gSize < 2) GTEST_SKIP() << "needs two ranks";
  auto t = freshTransport();
  Communicator comm(*t);
  std::vector<std::int64_t> data(64, 1);
  const ReduceOp op = gRank == 0 ? ReduceOp::Max : ReduceOp::Sum;
  try {
    comm.allreduce(data.data(), data.data(), data.size(), DataType::Int64, op);
    ADD_FAILURE() << "rank " << gRank << ": ranks passed different ops, yet allreduce returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Mismatch) << e.what();
    EXPECT_NE(std::string(e.what()).find("max"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sum"), std::string::npos) << e.what();
  }
}

// Raw transport, ranks 0 and 1 only: the first message of a call carries a header, later ones
// do not; a disagreement on either is a Mismatch on the receiver.
TEST(MpiTransport, TagAndLengthDisagreementsAreMismatches) {
  if (gSize < 2) GTEST_SKIP() << "needs two ranks";
  const auto timeout = std::chrono::seconds(20);
  struct Scenario {
    const char* name;
    std::size_t sendBytes, recvBytes;
    std::uint32_t sendTag, recvTag;
    bool headed;  // first message of the call
  };
  const Scenario scenarios[] = {
      {"header tag", 8, 8, 5, 6, true},
      {"header length", 8, 16, 5, 5, true},
      {"large header length", 9000, 8000, 5, 5, true},
      {"plain tag", 8, 8, 5, 6, false},
      {"plain shorter", 8, 16, 5, 5, false},
      {"plain longer", 16, 8, 5, 5, false},
  };
  for (const Scenario& s : scenarios) {
    SCOPED_TRACE(s.name);
    auto t = freshTransport();
    std::vector<std::byte> buffer(16384);
    if (!s.headed) {
      // One agreed message first, so that the next one is not the call's first.
      if (gRank == 0) t->wait(t->isend(1, buffer.data(), 4, 1), timeout);
      if (gRank == 1) t->wait(t->irecv(0, buffer.data(), 4, 1), timeout);
    }
    if (gRank == 0) {
      // The send completes, or (when the receiver gave up before taking it) fails with the
      // receiver's cause, as the Communicator's abort would make it.
      try {
        t->wait(t->isend(1, buffer.data(), s.sendBytes, s.sendTag), timeout);
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::Mismatch) << e.what();
      }
    }
    if (gRank == 1) {
      try {
        t->wait(t->irecv(0, buffer.data(), s.recvBytes, s.recvTag), timeout);
        ADD_FAILURE() << "the receive completed";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::Mismatch) << e.what();
        EXPECT_NE(std::string(e.what()).find("rank 0"), std::string::npos) << e.what();
        t->abort(e);
      }
    }
  }
  barrier();
}

TEST(MpiTransport, UnmatchedReceiveTimesOutNamingThePeer) {
  if (gSize < 2) GTEST_SKIP() << "needs two ranks";
  auto t = freshTransport();
  if (gRank == 0) {
    std::int32_t value = 0;
    const auto begin = std::chrono::steady_clock::now();
    try {
      t->wait(t->irecv(1, &value, sizeof value, 0), std::chrono::milliseconds(300));
      ADD_FAILURE() << "a receive nobody sent completed";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::Timeout) << e.what();
      EXPECT_NE(std::string(e.what()).find("rank 1"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5));
  }
  barrier();
}

TEST(MpiTransport, AbortReachesWaitingRanksWithItsCause) {
  if (gSize < 2) GTEST_SKIP() << "needs two ranks";
  auto t = freshTransport();
  if (gRank == 0) {
    t->abort(Error(ErrorCode::InvalidArgument, "rank 0 gave up on purpose"));
  } else {
    std::int32_t value = 0;
    try {
      t->wait(t->irecv(0, &value, sizeof value, 0), std::chrono::seconds(20));
      ADD_FAILURE() << "rank " << gRank << ": a receive from an aborted rank completed";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
      EXPECT_NE(std::string(e.what()).find("on purpose"), std::string::npos) << e.what();
    }
  }
  barrier();
}

// MPI's own AllReduce against ringlab's on the same inputs: integer reduction is exact, so
// the two must agree to the bit, whatever order each combines in.
TEST(MpiAllreduce, EqualsRingAllreduceBitwiseForIntegers) {
  Communicator comm(*gWorld);
  for (DataType type : {DataType::Int8, DataType::Uint8, DataType::Int32, DataType::Uint32,
                        DataType::Int64, DataType::Uint64}) {
    for (ReduceOp op : kAllReduceOps) {
      for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1003}}) {
        for (bool inPlace : {false, true}) {
          SCOPED_TRACE(std::string(dataTypeName(type)) + " " + reduceOpName(op) +
                       " n=" + std::to_string(count) + (inPlace ? " in place" : ""));
          const std::size_t bytes = count * dataTypeSize(type);
          std::vector<std::byte> in(bytes), ours(bytes, std::byte{0xAB}),
              theirs(bytes, std::byte{0xCD});
          fillCheckInput(type, op, gRank, in.data(), count);
          if (inPlace) {
            ours = in;
            theirs = in;
            comm.allreduce(ours.data(), ours.data(), count, type, op);
            transport::mpiAllreduce(theirs.data(), theirs.data(), count, type, op);
          } else {
            comm.allreduce(in.data(), ours.data(), count, type, op);
            transport::mpiAllreduce(in.data(), theirs.data(), count, type, op);
          }
          EXPECT_TRUE(ours == theirs) << "rank " << gRank;
          EXPECT_EQ(countWrong(type, op, gSize, theirs.data(), count), 0u) << "rank " << gRank;
        }
      }
    }
  }
}

TEST(MpiAllreduce, FloatingTypesExactAnd16BitTypesRefused) {
  for (DataType type : {DataType::Float32, DataType::Float64}) {
    for (ReduceOp op : kAllReduceOps) {
      SCOPED_TRACE(std::string(dataTypeName(type)) + " " + reduceOpName(op));
      const std::uint64_t count = 257;
      std::vector<std::byte> data(count * dataTypeSize(type));
      fillCheckInput(type, op, gRank, data.data(), count);
      transport::mpiAllreduce(data.data(), data.data(), count, type, op);
      EXPECT_EQ(countWrong(type, op, gSize, data.data(), count), 0u) << "rank " << gRank;
    }
  }
  for (DataType type : {DataType::Float16, DataType::Bfloat16}) {
    std::vector<std::byte> data(8 * dataTypeSize(type));
    try {
      transport::mpiAllreduce(data.data(), data.data(), 8, type, ReduceOp::Sum);
      ADD_FAILURE() << dataTypeName(type) << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
      EXPECT_NE(std::string(e.what()).find(dataTypeName(type)), std::string::npos) << e.what();
    }
  }
}

// Non-zero ranks print only what failed, prefixed with their rank, so that the log reads as one
// report (rank 0's) plus whatever went wrong elsewhere.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: %s\n", gRank,
                 result.file_name() ? result.file_name() : "?", result.line_number(),
                 result.summary());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed()) {
      std::fprintf(stderr, "[rank %d] FAILED %s.%s\n", gRank, info.test_suite_name(), info.name());
    }
  }
};

}  // namespace
}  // namespace ringlab::test

int main(int argc, char** argv) {
  using namespace ringlab::test;
  // MPI first: which contract cases exist depends on p.
  gWorld = ringlab::transport::connectMpi();
  gRank = gWorld->rank();
  gSize = gWorld->size();
  ::testing::InitGoogleTest(&argc, argv);
  if (gRank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter);
  } else {
    std::printf("%s, %d ranks\n", ringlab::transport::mpiLibraryVersion().c_str(), gSize);
  }
  const int failed = RUN_ALL_TESTS();
  gWorld.reset();
  return failed;
}
