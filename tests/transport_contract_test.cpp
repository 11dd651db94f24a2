// The transport contract suite: the same cases (contract_cases.hpp) through the Communicator over
// every transport whose ranks can be threads of this process: inproc, shm and tcp. (MPI runs the
// same cases with one process per rank, under mpirun: mpi_contract_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "contract_cases.hpp"
#include "exec/attribution.hpp"
#include "ringlab/bootstrap/store.hpp"
#include "ringlab/transport/inproc.hpp"
#include "ringlab/transport/shm.hpp"
#include "transport/shm/shm_layout.hpp"
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

// shm's slots: a piece of up to kInlinePieceBytes travels in its header's line, a larger one in
// the slot's payload, and a message of several pieces may end with either. Both sides must follow
// the same rule: every byte arrives, no byte past the message is written, and reducing receives
// combine exactly, on both sides of the inline size and of the slot size.
TEST(ShmSlots, PiecesOnBothSidesOfTheInlineSizeArriveWholeAndReduceExactly) {
  constexpr std::size_t kInline = transport::shm::kInlinePieceBytes;
  constexpr std::size_t kSlot = transport::shm::kSlotBytes;
  const std::vector<std::size_t> sizes = {
      0,         1,     kInline - 1, kInline,         kInline + 1,         63,
      kSlot - 1, kSlot, kSlot + 1,   kSlot + kInline, kSlot + kInline + 1, 2 * kSlot - 3};
  std::unique_ptr<transport::InprocWorld> unused;
  auto transports = connectPair("shm", unused);
  const auto byteOf = [](int from, std::size_t message, std::size_t i) {
    return static_cast<std::uint8_t>((i * 31 + message * 7 + static_cast<std::size_t>(from)) % 251);
  };
  std::vector<std::string> failures(2);
  std::vector<std::thread> ranks;
  for (int r = 0; r < 2; ++r) {
    ranks.emplace_back([&, r] {
      try {
        transport::Transport& t = *transports[r];
        const int peer = 1 - r;
        std::vector<std::vector<std::uint8_t>> out(sizes.size()), in(sizes.size());
        std::vector<transport::Request> sends, recvs;
        for (std::size_t m = 0; m < sizes.size(); ++m) {
          in[m].assign(sizes[m] + 8, 0xEE);  // 8 guard bytes that must stay untouched
          recvs.push_back(t.irecv(peer, in[m].data(), sizes[m], 3));
          out[m].resize(sizes[m]);
          for (std::size_t i = 0; i < sizes[m]; ++i) out[m][i] = byteOf(r, m, i);
          sends.push_back(t.isend(peer, out[m].data(), sizes[m], 3));
        }
        for (transport::Request q : recvs) t.wait(q, std::chrono::seconds(10));
        for (transport::Request q : sends) t.wait(q, std::chrono::seconds(10));
        for (std::size_t m = 0; m < sizes.size() && failures[r].empty(); ++m) {
          for (std::size_t i = 0; i < in[m].size(); ++i) {
            const std::uint8_t want = i < sizes[m] ? byteOf(peer, m, i) : 0xEE;
            if (in[m][i] != want) {
              failures[r] = "message of " + std::to_string(sizes[m]) + " bytes, byte " +
                            std::to_string(i) + ": " + std::to_string(in[m][i]);
              break;
            }
          }
        }
        // Reducing receives: int32 sums, counts whose last piece is inline or not.
        for (std::size_t count : {std::size_t{1}, kInline / 4, kInline / 4 + 1, kSlot / 4 + 1,
                                  kSlot / 4 + kInline / 4, kSlot / 4 + kInline / 4 + 1}) {
          std::vector<std::int32_t> mine(count), theirs(count), sum(count + 2, -7);
          for (std::size_t i = 0; i < count; ++i) {
            mine[i] = static_cast<std::int32_t>(i * 3 + r);
            theirs[i] = static_cast<std::int32_t>(i * 3 + peer);
          }
          const transport::Request send = t.isend(peer, mine.data(), count * 4, 4);
          const transport::Request recv = t.irecvReduce(peer, sum.data(), mine.data(), count,
                                                        {DataType::Int32, ReduceOp::Sum}, 4);
          t.wait(recv, std::chrono::seconds(10));
          t.wait(send, std::chrono::seconds(10));
          for (std::size_t i = 0; i < count + 2 && failures[r].empty(); ++i) {
            const std::int32_t want = i < count ? mine[i] + theirs[i] : -7;
            if (sum[i] != want) {
              failures[r] = "reduce of " + std::to_string(count) + " x int32, element " +
                            std::to_string(i) + ": " + std::to_string(sum[i]);
            }
          }
        }
      } catch (const Error& e) {
        failures[r] = e.what();
      }
    });
  }
  for (auto& t : ranks) t.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
}

// shm compares stamps by digest: equal stamps agree, and a change in any field is seen.
TEST(CallStampDigest, EqualStampsAgreeAndEveryFieldChangesIt) {
  transport::CallStamp a;
  a.count = 1000;
  a.specHash = 0x1a2b3c4d;
  a.type = 8;
  std::strncpy(a.algorithm, "ring", sizeof a.algorithm);
  transport::CallStamp b = a;
  EXPECT_EQ(a.digest(), b.digest());
  const std::uint64_t base = a.digest();
  b.count = 1001;
  EXPECT_NE(b.digest(), base);
  b = a;
  b.specHash ^= 1;
  EXPECT_NE(b.digest(), base);
  b = a;
  b.op = 1;
  EXPECT_NE(b.digest(), base);
  b = a;
  b.algorithm[31] = 'x';
  EXPECT_NE(b.digest(), base);
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

class TransportSurvey : public ::testing::TestWithParam<std::string> {};

// After every rank of three has aborted, each one's survey finds the others answered, each with
// the WaitPoint it aborted with (peer, tag and call as sent; "waiting for no receive" too), so
// that every rank compares the same positions (exec/attribution). shm waits for answers from
// peers still running (here threads that abort a moment later); tcp reads them from the abort.
TEST_P(TransportSurvey, EveryAbortSaysWhereItsRankStood) {
  const int p = 3;
  auto store = bootstrap::makeMemoryStore();
  std::vector<std::unique_ptr<transport::Transport>> owned(p);
  {
    std::vector<std::thread> connecting;
    for (int r = 0; r < p; ++r) {
      connecting.emplace_back([&, r] { owned[r] = connectRank(GetParam(), r, p, *store); });
    }
    for (auto& t : connecting) t.join();
  }
  const std::vector<transport::WaitPoint> stood = {
      {2, 7, 41}, {0, exec::kAgreementTag + 1, 41}, {-1, 0, 42}};
  std::vector<std::vector<transport::PeerReport>> reports(p);
  std::vector<std::thread> ranks;
  for (int r = 0; r < p; ++r) {
    ranks.emplace_back([&, r] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20 * r));
      owned[r]->abort(Error(ErrorCode::Timeout, "rank " + std::to_string(r) + " gave up"),
                      stood[r]);
      reports[r] = owned[r]->survey(std::chrono::steady_clock::now() + std::chrono::seconds(5));
    });
  }
  for (auto& t : ranks) t.join();
  for (int r = 0; r < p; ++r) {
    ASSERT_EQ(reports[r].size(), static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q) {
      if (q == r) continue;
      EXPECT_EQ(reports[r][q].state, transport::PeerState::Answered) << r << " of " << q;
      ASSERT_TRUE(reports[r][q].waiting) << r << " of " << q;
      EXPECT_EQ(*reports[r][q].waiting, stood[q]) << r << " of " << q;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ProcessTransports, TransportSurvey,
                         ::testing::Values("shm", "tcp", "tcp_channels"),
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
