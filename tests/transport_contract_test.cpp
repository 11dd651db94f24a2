// The transport contract suite: the same cases (contract_cases.hpp) through the Communicator over
// every transport whose ranks can be threads of this process: inproc, shm and tcp. (MPI runs the
// same cases with one process per rank, under mpirun: mpi_contract_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "contract_cases.hpp"
#include "ringlab/bootstrap/store.hpp"
#include "ringlab/transport/inproc.hpp"
#include "ringlab/transport/shm.hpp"
#include "transport_worlds.hpp"

namespace ringlab::test {
namespace {

struct ContractParam {
  std::string transport;
  int ranks;
};

class TransportContract : public ::testing::TestWithParam<ContractParam> {};
class TransportAgreement : public ::testing::TestWithParam<ContractParam> {};

TEST_P(TransportContract, EveryCaseExactOnEveryRank) {
  const auto [kind, p] = GetParam();
  const std::vector<ContractCase> cases = contractCases(p);
  runOnWorld(kind, p, [&](Communicator& comm) {
    for (const ContractCase& c : cases) {
      SCOPED_TRACE(c.name);
      runContractCase(comm, c);
      if (::testing::Test::HasFatalFailure()) return;
    }
  });
}

// Ranks that disagree on the call fail with Mismatch, every one of them, naming both calls, and
// none of them has changed its output buffer.
TEST_P(TransportAgreement, DisagreeingRanksAllFailWithMismatch) {
  const auto [kind, p] = GetParam();
  std::vector<std::string> errors(p);
  std::vector<int> untouched(p, 0);
  runOnWorldCatching(kind, p, [&](Communicator& comm) {
    const int r = comm.rank();
    const std::uint64_t count = r == p - 1 ? 1001 : 1000;  // the last rank asks for one more
    std::vector<float> in(count, 1.0f), out(count, -7.0f);
    try {
      comm.allreduce(in.data(), out.data(), count, DataType::Float32, ReduceOp::Sum);
    } catch (const Error& e) {
      errors[r] = std::string(errorCodeName(e.code())) + ": " + e.what();
    }
    untouched[r] = std::all_of(out.begin(), out.end(), [](float v) { return v == -7.0f; });
  });
  for (int r = 0; r < p; ++r) {
    EXPECT_EQ(errors[r].rfind("mismatch: ", 0), 0u) << "rank " << r << ": " << errors[r];
    EXPECT_NE(errors[r].find("1000 x float32"), std::string::npos) << errors[r];
    EXPECT_NE(errors[r].find("1001 x float32"), std::string::npos) << errors[r];
    EXPECT_TRUE(untouched[r]) << "rank " << r << " wrote its output before the mismatch was found";
  }
}

// Memory the peers read in place: zeroed, writable, distinct; the table's limit is a one-line
// error naming it; transports without such memory answer null.
TEST(SharedBuffers, ShmHandsOutZeroedBuffersUpToItsTable) {
  auto store = bootstrap::makeMemoryStore();
  auto shm = transport::connectShm(0, 1, *store, {"", std::chrono::seconds(10)});
  std::vector<std::byte*> buffers;
  for (int i = 0; i < 16; ++i) {
    auto* b = static_cast<std::byte*>(shm->allocateShared(4097));
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(std::all_of(b, b + 4097, [](std::byte x) { return x == std::byte{0}; }));
    b[4096] = std::byte{1};
    buffers.push_back(b);
  }
  EXPECT_EQ(std::set<std::byte*>(buffers.begin(), buffers.end()).size(), buffers.size());
  try {
    shm->allocateShared(8);
    FAIL() << "a 17th buffer was handed out";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Transport);
    EXPECT_NE(std::string(e.what()).find("already has 16, the most it can"), std::string::npos)
        << e.what();
  }
  transport::InprocWorld inproc(1);
  EXPECT_EQ(inproc.transport(0).allocateShared(64), nullptr);
}

// Two ranks of `kind` as bare transports, each connected on its own thread.
std::vector<std::unique_ptr<transport::Transport>> connectPair(
    const std::string& kind, std::unique_ptr<transport::InprocWorld>& inproc) {
  std::vector<std::unique_ptr<transport::Transport>> owned(2);
  if (kind == "inproc") {
    inproc = std::make_unique<transport::InprocWorld>(2);
    return owned;
  }
  auto store = bootstrap::makeMemoryStore();
  std::thread other([&] { owned[1] = connectRank(kind, 1, 2, *store); });
  owned[0] = connectRank(kind, 0, 2, *store);
  other.join();
  return owned;
}

class TransportWaitUntil : public ::testing::TestWithParam<std::string> {};

// waitUntil(request, deadline), the executor's wait: a message that has arrived is taken even
// when the deadline has passed (shm reads the clock only once its spin is over), odd sizes arrive
// whole on both sides, and a receive nobody sends to is Timeout by its deadline.
TEST_P(TransportWaitUntil, TakesWhatArrivedAndTimesOutByTheDeadline) {
  std::unique_ptr<transport::InprocWorld> inproc;
  auto owned = connectPair(GetParam(), inproc);
  transport::Transport& zero = inproc ? inproc->transport(0) : *owned[0];
  transport::Transport& one = inproc ? inproc->transport(1) : *owned[1];
  const auto later = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (std::size_t bytes : {std::size_t{1}, std::size_t{47}, std::size_t{48}, std::size_t{4099}}) {
    SCOPED_TRACE(bytes);
    std::vector<std::uint8_t> sent(bytes), got(bytes, 0), back(bytes, 0);
    for (std::size_t i = 0; i < bytes; ++i) sent[i] = static_cast<std::uint8_t>(i * 7 + 3);
    std::thread peer([&] {
      const transport::Request s = one.isend(0, sent.data(), bytes, 5);
      const transport::Request r = one.irecv(0, back.data(), bytes, 6);
      one.waitUntil(s, later);
      one.waitUntil(r, later);
    });
    const transport::Request r = zero.irecv(1, got.data(), bytes, 5);
    zero.waitUntil(r, later);
    const transport::Request s = zero.isend(1, got.data(), bytes, 6);
    zero.waitUntil(s, later);
    peer.join();
    EXPECT_EQ(got, sent);
    EXPECT_EQ(back, sent);
  }
  // Sent before the wait, whose deadline is already over: taken all the same.
  std::uint32_t word = 0xfeedbeef, arrived = 0;
  const transport::Request s = one.isend(0, &word, sizeof word, 7);
  const transport::Request r = zero.irecv(1, &arrived, sizeof arrived, 7);
  one.waitUntil(s, later);
  zero.waitUntil(r, std::chrono::steady_clock::now() - std::chrono::seconds(1));
  EXPECT_EQ(arrived, word);
  // Nobody sends: Timeout, by the deadline.
  const transport::Request never = zero.irecv(1, &arrived, sizeof arrived, 8);
  try {
    zero.waitUntil(never, std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
    FAIL() << "a receive nobody sends to completed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Timeout) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(AllTransports, TransportWaitUntil, ::testing::ValuesIn(worldKinds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

std::vector<ContractParam> params(int minRanks) {
  std::vector<ContractParam> out;
  for (const std::string& kind : worldKinds()) {
    for (int p : {1, 2, 3, 4, 5, 8}) {
      if (p >= minRanks) out.push_back({kind, p});
    }
  }
  return out;
}

std::string paramName(const ::testing::TestParamInfo<ContractParam>& info) {
  return info.param.transport + "_p" + std::to_string(info.param.ranks);
}

INSTANTIATE_TEST_SUITE_P(AllTransports, TransportContract, ::testing::ValuesIn(params(1)),
                         paramName);
// Disagreeing takes two ranks.
INSTANTIATE_TEST_SUITE_P(AllTransports, TransportAgreement, ::testing::ValuesIn(params(2)),
                         paramName);

}  // namespace
}  // namespace ringlab::test
