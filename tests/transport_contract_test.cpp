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
