// The TCP transport with ranks as threads of this process over loopback: every algorithm through
// the Communicator, the contract's failure cases (stamp mismatch on every rank, abort, lost peer,
// timeout), hostile input at a live rank's data port, and the setup errors (a rendezvous that never
// completes). Timeouts are about 2 s so a regression fails fast instead of hanging.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/handshake.hpp"
#include "bootstrap/net.hpp"
#include "bootstrap/wire.hpp"
#include "expect_error.hpp"
#include "ringlab/bootstrap/store.hpp"
#include "ringlab/communicator.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/transport/tcp.hpp"
#include "stranger_flood.hpp"
#include "transport/tcp/frame.hpp"

namespace ringlab {
namespace {

using namespace std::chrono_literals;
using transport::Transport;

constexpr const char* kToken = "tcp-test-token";
constexpr auto kTimeout = 2000ms;

transport::TcpOptions tcpOptions(std::chrono::milliseconds timeout = kTimeout) {
  transport::TcpOptions o;
  o.token = kToken;
  o.timeout = timeout;
  return o;
}

// The key a rank publishes its data address under (transport/tcp/mesh.cpp).
std::string addressKey(int rank) {
  return "ringlab/tcp/address/" + std::to_string(rank);
}

// Connects p TCP transports (one per thread, as separate processes would) over one memory store.
std::vector<std::unique_ptr<Transport>> connectAll(int p, bootstrap::Store& store,
                                                   std::chrono::milliseconds timeout = kTimeout) {
  std::vector<std::unique_ptr<Transport>> transports(p);
  std::vector<std::string> errors(p);
  std::vector<std::thread> threads;
  for (int r = 0; r < p; ++r) {
    threads.emplace_back([&, r] {
      try {
        transports[r] = transport::connectTcp(r, p, store, tcpOptions(timeout));
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < p; ++r) EXPECT_EQ(errors[r], "") << "rank " << r;
  return transports;
}

// Runs fn(rank) on p threads and returns each rank's error (empty when it succeeded).
struct Outcome {
  std::optional<ErrorCode> code;
  std::string message;
};
std::vector<Outcome> onThreads(int p, const std::function<void(int)>& fn) {
  std::vector<Outcome> out(p);
  std::vector<std::thread> threads;
  for (int r = 0; r < p; ++r) {
    threads.emplace_back([&, r] {
      try {
        fn(r);
      } catch (const Error& e) {
        out[r] = {e.code(), e.what()};
      } catch (const std::exception& e) {
        out[r] = {ErrorCode::Internal, e.what()};
      }
    });
  }
  for (auto& t : threads) t.join();
  return out;
}

std::vector<schedule::AlgorithmSpec> specsFor(int p) {
  std::vector<schedule::AlgorithmSpec> specs;
  for (const std::string& name : model::algorithmNames()) {
    schedule::AlgorithmSpec s;
    s.name = name;
    if (name == "hierarchical") s.ranksPerNode = p % 2 == 0 ? 2 : 1;
    if (name == "multi_ring") s.channels = 2;
    specs.push_back(s);
  }
  return specs;
}

// Rank r's element i is (i % 97) * (r + 1) + r: sums are exact in int32.
std::int32_t inputValue(std::uint64_t i, int r) {
  return static_cast<std::int32_t>((i % 97) * (r + 1) + r);
}
std::int32_t expectedSum(std::uint64_t i, int p) {
  std::int64_t s = 0;
  for (int r = 0; r < p; ++r) s += inputValue(i, r);
  return static_cast<std::int32_t>(s);
}

class TcpAllReduce : public ::testing::TestWithParam<int> {};

TEST_P(TcpAllReduce, EveryAlgorithmAwkwardCountsInAndOutOfPlace) {
  const int p = GetParam();
  auto store = bootstrap::makeMemoryStore();
  auto transports = connectAll(p, *store);
  ASSERT_EQ(transports.size(), static_cast<std::size_t>(p));
  const auto up = static_cast<std::uint64_t>(p);
  // 0, fewer elements than ranks, not divisible by p, and large enough for many segments.
  const std::vector<std::uint64_t> counts = {0, 1, up > 2 ? up - 1 : 2, up + 1, 1001, 70'001};
  std::mutex failuresMutex;
  std::vector<std::string> failures;
  auto results = onThreads(p, [&](int r) {
    Communicator comm(*transports[r]);
    for (const schedule::AlgorithmSpec& spec : specsFor(p)) {
      for (std::uint64_t count : counts) {
        for (bool inPlace : {false, true}) {
          CollectiveOptions options;
          options.algorithm = spec;
          options.exec.timeout = kTimeout;
          options.exec.segmentBytes =
              count > 10'000 ? 8192 : 256 * 1024;  // pipelining, many frames
          std::vector<std::int32_t> in(count), out(count, -1);
          for (std::uint64_t i = 0; i < count; ++i) in[i] = inputValue(i, r);
          if (inPlace) {
            comm.allreduce(in.data(), in.data(), count, DataType::Int32, ReduceOp::Sum, options);
            out = in;
          } else {
            comm.allreduce(in.data(), out.data(), count, DataType::Int32, ReduceOp::Sum, options);
          }
          for (std::uint64_t i = 0; i < count; ++i) {
            if (out[i] != expectedSum(i, p)) {
              std::lock_guard lock(failuresMutex);
              failures.push_back(spec.name + " count " + std::to_string(count) +
                                 (inPlace ? " in place" : "") + ": rank " + std::to_string(r) +
                                 " element " + std::to_string(i) + " = " + std::to_string(out[i]) +
                                 ", expected " + std::to_string(expectedSum(i, p)));
              break;
            }
          }
        }
      }
    }
  });
  for (int r = 0; r < p; ++r)
    EXPECT_FALSE(results[r].code) << "rank " << r << ": " << results[r].message;
  for (const std::string& f : failures) ADD_FAILURE() << f;
}

INSTANTIATE_TEST_SUITE_P(Ranks, TcpAllReduce, ::testing::Values(1, 2, 3, 4));

// Both neighbours send each other several MiB at once, more than the socket buffers hold: the
// progress engine must keep reading while it writes.
TEST(TcpTransport, LargeExchangeBothWaysDoesNotDeadlock) {
  auto store = bootstrap::makeMemoryStore();
  auto transports = connectAll(2, *store);
  constexpr std::uint64_t kCount = 4 << 20;  // 16 MiB of int32 per rank
  auto results = onThreads(2, [&](int r) {
    Communicator comm(*transports[r]);
    for (const char* name : {"recursive_doubling", "ring"}) {
      CollectiveOptions options;
      options.algorithm.name = name;
      options.exec.timeout = 10s;
      options.exec.segmentBytes = 8 << 20;  // few, large frames: each larger than a socket buffer
      std::vector<std::int32_t> data(kCount);
      for (std::uint64_t i = 0; i < kCount; ++i) data[i] = inputValue(i, r);
      comm.allreduce(data.data(), data.data(), kCount, DataType::Int32, ReduceOp::Sum, options);
      for (std::uint64_t i = 0; i < kCount; i += 4099)
        ASSERT_EQ(data[i], expectedSum(i, 2)) << name << " " << i;
    }
  });
  for (int r = 0; r < 2; ++r) EXPECT_FALSE(results[r].code) << results[r].message;
}

// A receive of 64 KiB or more has its frame header read alone and its payload read straight into
// its buffer; smaller ones come through staging. Sizes on both sides of that threshold, and of a
// full staging buffer with its header, back to back in both directions, with the receives posted
// before the data arrives and after it: every byte must land where it belongs, and nothing past it.
TEST(TcpTransport, PayloadsAcrossTheDirectReadThresholdArriveWhole) {
  constexpr std::size_t kStaging = 64 * 1024;
  constexpr std::size_t kHeader = transport::tcp::kFrameHeaderBytes;
  const std::vector<std::size_t> sizes = {0,
                                          1,
                                          kStaging - kHeader - 1,
                                          kStaging - kHeader,
                                          kStaging - 1,
                                          kStaging,
                                          kStaging + 1,
                                          3,
                                          kStaging + 7,
                                          2 * kStaging - 5,
                                          5 * kStaging + 3,
                                          17};
  const auto byteOf = [](int from, std::size_t message, std::size_t i) {
    return static_cast<std::uint8_t>((i * 31 + message * 7 + static_cast<std::size_t>(from)) % 251);
  };
  auto store = bootstrap::makeMemoryStore();
  auto transports = connectAll(2, *store);
  auto results = onThreads(2, [&](int r) {
    Transport& t = *transports[r];
    const int peer = 1 - r;
    for (bool postReceivesFirst : {true, false}) {
      std::vector<std::vector<std::uint8_t>> out(sizes.size()), in(sizes.size());
      std::vector<transport::Request> sends, recvs;
      const auto postReceives = [&] {
        for (std::size_t m = 0; m < sizes.size(); ++m) {
          in[m].assign(sizes[m] + 8, 0xEE);  // 8 guard bytes that must stay untouched
          recvs.push_back(t.irecv(peer, in[m].data(), sizes[m], 5));
        }
      };
      if (postReceivesFirst) postReceives();
      for (std::size_t m = 0; m < sizes.size(); ++m) {
        out[m].resize(sizes[m]);
        for (std::size_t i = 0; i < sizes[m]; ++i) out[m][i] = byteOf(r, m, i);
        sends.push_back(t.isend(peer, out[m].data(), sizes[m], 5));
      }
      if (!postReceivesFirst) {
        std::this_thread::sleep_for(20ms);  // let the frames reach this rank's socket first
        postReceives();
      }
      for (transport::Request q : recvs) t.wait(q, kTimeout);
      for (transport::Request q : sends) t.wait(q, kTimeout);
      for (std::size_t m = 0; m < sizes.size(); ++m) {
        for (std::size_t i = 0; i < sizes[m]; ++i) {
          ASSERT_EQ(in[m][i], byteOf(peer, m, i)) << "message " << m << " byte " << i;
        }
        for (std::size_t i = sizes[m]; i < in[m].size(); ++i) {
          ASSERT_EQ(in[m][i], 0xEE) << "message " << m << " guard byte " << i - sizes[m];
        }
      }
    }
  });
  for (int r = 0; r < 2; ++r) EXPECT_FALSE(results[r].code) << results[r].message;
}

// Allreduce with segments on both sides of the direct-read threshold (and reducing on receive,
// which always reads through staging): every rank ends with the same bits, the exact sums.
TEST(TcpTransport, SegmentsAcrossTheDirectReadThresholdReduceExactly) {
  constexpr std::uint64_t kCount = 100'003;  // not divisible by p, several segments per block
  for (bool reduceOnReceive : {false, true}) {
    for (int p : {2, 3}) {
      auto store = bootstrap::makeMemoryStore();
      std::vector<std::unique_ptr<Transport>> transports(p);
      onThreads(p, [&](int r) {
        transport::TcpOptions o = tcpOptions();
        o.reduceOnReceive = reduceOnReceive;
        transports[r] = transport::connectTcp(r, p, *store, o);
      });
      std::vector<std::vector<std::int32_t>> results(p);
      for (std::uint64_t segment : {64 * 1024 - 4, 64 * 1024, 64 * 1024 + 4}) {
        auto outcomes = onThreads(p, [&](int r) {
          ASSERT_TRUE(transports[r]);
          Communicator comm(*transports[r]);
          CollectiveOptions options;
          options.exec.timeout = kTimeout;
          options.exec.segmentBytes = segment;
          std::vector<std::int32_t>& data = results[r];
          data.resize(kCount);
          for (std::uint64_t i = 0; i < kCount; ++i) data[i] = inputValue(i, r);
          comm.allreduce(data.data(), data.data(), kCount, DataType::Int32, ReduceOp::Sum, options);
        });
        for (int r = 0; r < p; ++r) ASSERT_FALSE(outcomes[r].code) << outcomes[r].message;
        for (std::uint64_t i = 0; i < kCount; ++i) {
          ASSERT_EQ(results[0][i], expectedSum(i, p)) << "segment " << segment << " element " << i;
        }
        for (int r = 1; r < p; ++r) {
          ASSERT_EQ(std::memcmp(results[r].data(), results[0].data(), kCount * 4), 0)
              << "rank " << r << " differs from rank 0, p " << p << ", segment " << segment;
        }
      }
    }
  }
}

TEST(TcpTransport, StampMismatchIsDetectedOnEveryRank) {
  auto store = bootstrap::makeMemoryStore();
  constexpr int p = 3;
  auto transports = connectAll(p, *store);
  auto results = onThreads(p, [&](int r) {
    Communicator comm(*transports[r]);
    const std::uint64_t count = r == 2 ? 10 : 12;  // rank 2 disagrees on the count
    std::vector<float> data(count, 1.0f);
    CollectiveOptions options;
    options.exec.timeout = kTimeout;
    comm.allreduce(data.data(), data.data(), count, DataType::Float32, ReduceOp::Sum, options);
  });
  for (int r = 0; r < p; ++r) {
    ASSERT_TRUE(results[r].code) << "rank " << r << " did not fail";
    EXPECT_EQ(*results[r].code, ErrorCode::Mismatch) << "rank " << r << ": " << results[r].message;
  }
  // The ranks that saw the bad message themselves name both calls.
  EXPECT_NE(results[0].message.find("allreduce of 10"), std::string::npos) << results[0].message;
  EXPECT_NE(results[0].message.find("allreduce of 12"), std::string::npos) << results[0].message;
}

TEST(TcpTransport, AbortReachesPeersWithItsCodeAndRank) {
  auto store = bootstrap::makeMemoryStore();
  constexpr int p = 3;
  auto transports = connectAll(p, *store);
  auto results = onThreads(p, [&](int r) {
    if (r == 1) {
      transports[r]->abort(Error(ErrorCode::InvalidArgument, "injected failure"));
      return;
    }
    Communicator comm(*transports[r]);
    std::vector<float> data(1000, 1.0f);
    CollectiveOptions options;
    options.exec.timeout = kTimeout;
    comm.allreduce(data.data(), data.data(), data.size(), DataType::Float32, ReduceOp::Sum,
                   options);
  });
  for (int r : {0, 2}) {
    ASSERT_TRUE(results[r].code) << "rank " << r;
    EXPECT_EQ(*results[r].code, ErrorCode::InvalidArgument) << results[r].message;
    EXPECT_NE(results[r].message.find("rank 1 aborted"), std::string::npos) << results[r].message;
    EXPECT_NE(results[r].message.find("injected failure"), std::string::npos) << results[r].message;
  }
}

// The aborting rank has megabytes of data queued that the receiver never asked for; the abort still
// arrives at once, not at the receiver's timeout.
TEST(TcpTransport, AbortOvertakesUnreadData) {
  auto store = bootstrap::makeMemoryStore();
  constexpr int p = 3;
  auto transports = connectAll(p, *store);
  std::vector<std::byte> big(8 << 20);
  std::atomic<bool> queued{false};
  const auto start = std::chrono::steady_clock::now();
  auto results = onThreads(p, [&](int r) {
    if (r == 0) {
      transports[0]->isend(1, big.data(), big.size(), 5);  // rank 1 never posts this receive
      queued = true;
      std::this_thread::sleep_for(100ms);
      transports[0]->abort(Error(ErrorCode::Timeout, "gave up"));
    } else if (r == 1) {
      std::byte b[4];
      transport::Request req = transports[1]->irecv(2, b, sizeof b, 9);  // rank 2 never sends
      transports[1]->wait(req, 5s);
    } else {
      while (!queued) std::this_thread::sleep_for(1ms);
      std::this_thread::sleep_for(500ms);  // stays connected, silent
    }
  });
  // The aborting rank's stream is full, so the abort cannot carry its code; it resets the
  // connection, and rank 1 fails at once with PeerLost naming it rather than at its timeout.
  ASSERT_TRUE(results[1].code);
  EXPECT_TRUE(*results[1].code == ErrorCode::Timeout || *results[1].code == ErrorCode::PeerLost)
      << results[1].message;
  EXPECT_NE(results[1].message.find("rank 0"), std::string::npos) << results[1].message;
  EXPECT_EQ(results[1].message.find("not complete within"), std::string::npos)
      << results[1].message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, test::kFailureSlack);
}

// With room in the stream, the abort overtakes unread data frames with its code and reason.
TEST(TcpTransport, AbortOvertakesUnreadSmallDataWithItsCode) {
  auto store = bootstrap::makeMemoryStore();
  constexpr int p = 3;
  auto transports = connectAll(p, *store);
  std::vector<std::byte> small(1000);
  std::atomic<bool> done{false};
  std::chrono::steady_clock::duration rank1Took{};
  const auto start = std::chrono::steady_clock::now();
  auto results = onThreads(p, [&](int r) {
    if (r == 0) {
      transports[0]->isend(1, small.data(), small.size(), 5);  // never asked for by rank 1
      std::this_thread::sleep_for(50ms);
      transports[0]->abort(Error(ErrorCode::Timeout, "gave up waiting"));
    } else if (r == 1) {
      std::byte b[4];
      transport::Request req = transports[1]->irecv(2, b, sizeof b, 9);  // rank 2 never sends
      try {
        transports[1]->wait(req, 5s);
      } catch (...) {
        rank1Took = std::chrono::steady_clock::now() - start;
        done = true;
        throw;
      }
    } else {
      while (!done && std::chrono::steady_clock::now() - start < 6s)
        std::this_thread::sleep_for(1ms);
    }
  });
  ASSERT_TRUE(results[1].code);
  EXPECT_EQ(*results[1].code, ErrorCode::Timeout) << results[1].message;
  EXPECT_NE(results[1].message.find("rank 0 aborted the collective: gave up waiting"),
            std::string::npos)
      << results[1].message;
  EXPECT_LT(rank1Took, 2s);
}

TEST(TcpTransport, PeerThatGoesAwayIsPeerLostNamingIt) {
  auto store = bootstrap::makeMemoryStore();
  auto transports = connectAll(2, *store);
  auto results = onThreads(2, [&](int r) {
    if (r == 1) {
      std::this_thread::sleep_for(50ms);
      transports[1].reset();  // closes its connections, as a killed process's kernel would
      return;
    }
    std::byte b[16];
    transport::Request req = transports[0]->irecv(1, b, sizeof b, 0);
    transports[0]->wait(req, kTimeout);
  });
  ASSERT_TRUE(results[0].code);
  EXPECT_EQ(*results[0].code, ErrorCode::PeerLost) << results[0].message;
  EXPECT_NE(results[0].message.find("rank 1"), std::string::npos) << results[0].message;
}

TEST(TcpTransport, SilentPeerTimesOutNamingIt) {
  auto store = bootstrap::makeMemoryStore();
  auto transports = connectAll(2, *store);
  std::byte b[16];
  const auto start = std::chrono::steady_clock::now();
  transport::Request req = transports[0]->irecv(1, b, sizeof b, 0);
  try {
    transports[0]->wait(req, 300ms);
    FAIL() << "no timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Timeout);
    EXPECT_NE(std::string(e.what()).find("from rank 1"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, test::kFailureSlack);
}

TEST(TcpTransport, RendezvousThatNeverCompletesTimesOut) {
  auto store = bootstrap::makeMemoryStore();
  const auto start = std::chrono::steady_clock::now();
  try {
    transport::connectTcp(0, 2, *store, tcpOptions(500ms));  // rank 1 never comes
    FAIL() << "no timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Timeout);
    EXPECT_NE(std::string(e.what()).find("rank(s) 1 did not connect"), std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, test::kFailureSlack);
  try {
    transport::connectTcp(1, 2, *bootstrap::makeMemoryStore(),
                          tcpOptions(300ms));  // rank 0 never publishes
    FAIL() << "no timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Timeout);
    EXPECT_NE(std::string(e.what()).find("rank 0 did not publish"), std::string::npos) << e.what();
  }
}

TEST(TcpTransport, BadArgumentsAreInvalidArgument) {
  auto store = bootstrap::makeMemoryStore();
  auto expectInvalid = [&](int rank, int size, transport::TcpOptions o) {
    try {
      transport::connectTcp(rank, size, *store, o);
      ADD_FAILURE() << "accepted rank " << rank << " size " << size;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    }
  };
  expectInvalid(2, 2, tcpOptions());
  expectInvalid(0, 0, tcpOptions());
  transport::TcpOptions noToken = tcpOptions();
  noToken.token.clear();
  expectInvalid(0, 2, noToken);
  transport::TcpOptions badHost = tcpOptions();
  badHost.bindHost = "no-such-host.invalid";
  expectInvalid(0, 2, badHost);
}

// --- Hostile input -------------------------------------------------------------------------

bootstrap::net::Socket dial(const std::string& address) {
  const auto colon = address.rfind(':');
  return bootstrap::net::connectTo(address.substr(0, colon),
                                   static_cast<std::uint16_t>(std::stoi(address.substr(colon + 1))),
                                   bootstrap::net::Clock::now() + 1s, "test");
}

void sendBytes(const bootstrap::net::Socket& s, const void* data, std::size_t n) {
  bootstrap::net::sendAll(s.fd(), data, n, bootstrap::net::Clock::now() + 1s, "test");
}

// A data connection's hello fields, for channel `channel` of `channels` per peer (no proof).
bootstrap::wire::Hello dataHello(int rank, int size, int channel = 0, int channels = 1) {
  bootstrap::wire::Hello h;
  h.kind = bootstrap::wire::HelloKind::DataConnect;
  h.rank = static_cast<std::uint32_t>(rank);
  h.size = static_cast<std::uint32_t>(size);
  h.channel = static_cast<std::uint8_t>(channel);
  h.channels = static_cast<std::uint8_t>(channels);
  return h;
}

std::vector<std::uint8_t> hello(int rank, int size, int channel = 0, int channels = 1) {
  std::vector<std::uint8_t> bytes(bootstrap::wire::kHelloBytes);
  bootstrap::wire::encodeHello(dataHello(rank, size, channel, channels), bytes.data());
  return bytes;
}

// The handshake a rank (or an impostor) makes at a data port, proving `token`.
bootstrap::handshake::Greeted greetAt(const std::string& address, int rank, int size,
                                      const std::string& token, int channel = 0, int channels = 1) {
  const auto colon = address.rfind(':');
  return bootstrap::handshake::connectAndGreet(
      address.substr(0, colon), static_cast<std::uint16_t>(std::stoi(address.substr(colon + 1))),
      dataHello(rank, size, channel, channels), token, bootstrap::net::Clock::now() + 2s, "test");
}

bool refused(const bootstrap::handshake::Greeted& g) {
  return g.answer.status == bootstrap::wire::HelloStatus::Refused;
}

// Ranks 0 and 1, set up, reduce 5000 integers to their exact sums.
void expectAllReduceSums(Transport& t0, Transport& t1) {
  auto results = onThreads(2, [&](int r) {
    Communicator comm(r == 0 ? t0 : t1);
    std::vector<std::int32_t> data(5000);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = inputValue(i, r);
    comm.allreduce(data.data(), data.data(), data.size(), DataType::Int32, ReduceOp::Sum);
    for (std::size_t i = 0; i < data.size(); ++i) ASSERT_EQ(data[i], expectedSum(i, 2));
  });
  EXPECT_FALSE(results[0].code) << results[0].message;
  EXPECT_FALSE(results[1].code) << results[1].message;
}

// Garbage, a truncated hello, a wrong token, an impostor of a rank that is not due, and a silent
// connection, all at rank 0's data port while it waits for rank 1: each is refused and logged, and
// the collective then completes. After setup the port is closed: connecting is refused outright.
TEST(TcpHostile, GarbageTruncatedAndWrongTokenAtDataPortAreRefused) {
  auto store = bootstrap::makeMemoryStore();
  std::unique_ptr<Transport> t0, t1;
  std::string error0;
  testing::internal::CaptureStderr();
  std::thread rank0([&] {
    try {
      t0 = transport::connectTcp(0, 2, *store, tcpOptions());
    } catch (const std::exception& e) {
      error0 = e.what();
    }
  });
  const std::string address = store->get(addressKey(0), 2s);
  {
    auto garbage = dial(address);
    std::vector<std::uint8_t> junk(3000);
    for (std::size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<std::uint8_t>(i * 131 + 7);
    sendBytes(garbage, junk.data(), junk.size());
    auto truncated = dial(address);
    auto good = hello(1, 2);
    sendBytes(truncated, good.data(), good.size() / 2);
    EXPECT_TRUE(refused(greetAt(address, 1, 2, "not-the-token")));
    EXPECT_TRUE(refused(greetAt(address, 0, 2, kToken)));  // an impostor of a rank not due
    auto silent = dial(address);
    std::this_thread::sleep_for(200ms);  // let rank 0 see them all
  }  // the truncated one closes here, mid-hello; the silent one is dropped at the end of setup
  std::thread rank1([&] { t1 = transport::connectTcp(1, 2, *store, tcpOptions()); });
  rank0.join();
  rank1.join();
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_EQ(error0, "");
  ASSERT_TRUE(t0 && t1);
  EXPECT_NE(log.find("not a ringlab hello"), std::string::npos) << log;
  EXPECT_NE(log.find("wrong token"), std::string::npos) << log;
  EXPECT_NE(log.find("before completing the handshake"), std::string::npos) << log;
  EXPECT_NE(log.find("claims rank 0"), std::string::npos) << log;
  EXPECT_NE(log.find("refused connection from 127.0.0.1:"), std::string::npos) << log;

  // Set up: the data port no longer accepts anything.
  EXPECT_THROW(dial(address), Error);

  expectAllReduceSums(*t0, *t1);
}

// An authenticated peer that sends bad frames: rank 0's receive fails cleanly with the right
// code (never a crash, never a write past the posted buffer, never a hang).
struct FakePeer {
  std::unique_ptr<Transport> real;  // rank 0
  bootstrap::net::Socket fake;      // "rank 1", driven by the test
};

FakePeer connectFake(bootstrap::Store& store) {
  FakePeer f;
  std::thread rank0([&] { f.real = transport::connectTcp(0, 2, store, tcpOptions()); });
  auto greeted = greetAt(store.get(addressKey(0), 2s), 1, 2, kToken);
  EXPECT_FALSE(refused(greeted));
  f.fake = std::move(greeted.socket);
  rank0.join();
  return f;
}

std::vector<std::uint8_t> frame(transport::tcp::FrameType type, std::uint32_t tag,
                                std::uint64_t bytes, const transport::CallStamp& stamp) {
  transport::tcp::FrameHeader h;
  h.type = type;
  h.tag = tag;
  h.bytes = bytes;
  h.stamp = stamp;
  std::vector<std::uint8_t> out(transport::tcp::kFrameHeaderBytes);
  transport::tcp::encodeFrameHeader(h, out.data());
  return out;
}

Outcome receiveOnRealRank(FakePeer& f, std::size_t bytes, const std::function<void()>& attack) {
  std::vector<std::byte> buffer(bytes + 64, std::byte{0x5a});
  transport::Request req = f.real->irecv(1, buffer.data(), bytes, 3);
  attack();
  Outcome out;
  try {
    f.real->wait(req, 1s);
  } catch (const Error& e) {
    out = {e.code(), e.what()};
  }
  for (std::size_t i = bytes; i < buffer.size(); ++i)
    EXPECT_EQ(buffer[i], std::byte{0x5a}) << "wrote past the buffer";
  return out;
}

TEST(TcpHostile, BadFramesFromAnAuthenticatedPeerFailCleanly) {
  const transport::CallStamp stamp;  // the transport's stamp before any collective
  using transport::tcp::FrameType;
  {
    auto store = bootstrap::makeMemoryStore();
    FakePeer f = connectFake(*store);
    auto out = receiveOnRealRank(f, 100, [&] {
      std::vector<std::uint8_t> junk(200, 0xee);
      sendBytes(f.fake, junk.data(), junk.size());
    });
    EXPECT_EQ(out.code, ErrorCode::Transport) << out.message;
    EXPECT_NE(out.message.find("malformed frame from rank 1"), std::string::npos) << out.message;
  }
  {
    auto store = bootstrap::makeMemoryStore();
    FakePeer f = connectFake(*store);
    auto out = receiveOnRealRank(f, 100, [&] {
      auto h = frame(FrameType::Data, 3, 1 << 30, stamp);  // longer than the posted buffer
      sendBytes(f.fake, h.data(), h.size());
      std::vector<std::uint8_t> payload(4096, 1);
      sendBytes(f.fake, payload.data(), payload.size());
    });
    EXPECT_EQ(out.code, ErrorCode::Mismatch) << out.message;
  }
  {
    auto store = bootstrap::makeMemoryStore();
    FakePeer f = connectFake(*store);
    auto out = receiveOnRealRank(f, 100, [&] {
      auto h = frame(FrameType::Data, 3, 100, stamp);
      h[4] = 77;  // unknown frame type
      sendBytes(f.fake, h.data(), h.size());
    });
    EXPECT_EQ(out.code, ErrorCode::Transport) << out.message;
    EXPECT_NE(out.message.find("unknown frame type"), std::string::npos) << out.message;
  }
  {
    auto store = bootstrap::makeMemoryStore();
    FakePeer f = connectFake(*store);
    auto out = receiveOnRealRank(f, 100000, [&] {
      auto h = frame(FrameType::Data, 3, 100000, stamp);
      sendBytes(f.fake, h.data(), h.size());
      std::vector<std::uint8_t> half(50000, 2);
      sendBytes(f.fake, half.data(), half.size());
      f.fake.reset();  // truncated: the peer goes away mid-payload
    });
    EXPECT_EQ(out.code, ErrorCode::PeerLost) << out.message;
    EXPECT_NE(out.message.find("rank 1"), std::string::npos) << out.message;
  }
  {
    auto store = bootstrap::makeMemoryStore();
    FakePeer f = connectFake(*store);
    auto out = receiveOnRealRank(f, 100, [&] {
      auto h = frame(FrameType::Data, 3, 100, stamp);
      sendBytes(f.fake, h.data(), h.size() - 10);  // truncated header, then silence
    });
    EXPECT_EQ(out.code, ErrorCode::Timeout) << out.message;
  }
  {
    auto store = bootstrap::makeMemoryStore();
    FakePeer f = connectFake(*store);
    auto out = receiveOnRealRank(f, 100, [&] {
      auto h = frame(FrameType::Abort, 0, 1 << 20, stamp);  // abort text longer than allowed
      h[5] = static_cast<std::uint8_t>(ErrorCode::Timeout);
      sendBytes(f.fake, h.data(), h.size());
    });
    EXPECT_EQ(out.code, ErrorCode::Transport) << out.message;
  }
}

// Text a peer sends is printed only as printable ASCII, bounded: a forged stamp's algorithm name
// and an abort reason with ANSI escapes, newlines and binary bytes cannot reach this rank's
// error line as they are.
void expectPrintableLine(const std::string& message) {
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    ASSERT_TRUE(byte >= 0x20 && byte < 0x7f) << "byte " << int(byte) << " in: " << message;
  }
}

TEST(TcpHostile, ForgedStampAndAbortTextArePrintedAsPrintableAscii) {
  using transport::tcp::FrameType;
  {
    auto store = bootstrap::makeMemoryStore();
    FakePeer f = connectFake(*store);
    transport::CallStamp forged;
    const char name[] = "\x1b[2J\nrank 7:\x07\xff";
    std::memcpy(forged.algorithm, name, sizeof name - 1);
    auto out = receiveOnRealRank(f, 100, [&] {
      auto h = frame(FrameType::Data, 3, 100, forged);
      sendBytes(f.fake, h.data(), h.size());
    });
    EXPECT_EQ(out.code, ErrorCode::Mismatch) << out.message;
    expectPrintableLine(out.message);
    EXPECT_NE(out.message.find("\\x1b[2J\\x0arank 7:\\x07\\xff"), std::string::npos) << out.message;
  }
  {
    auto store = bootstrap::makeMemoryStore();
    FakePeer f = connectFake(*store);
    // The abort's WaitPoint (waiting for no receive), then its text.
    std::string text = std::string(transport::tcp::kAbortPointBytes, '\0') +
                       "\x1b[31mrank 5 is to blame\r\n\x1b]0;title\x07";
    text += std::string(
        transport::tcp::kAbortPointBytes + transport::tcp::kMaxAbortTextBytes - text.size(), '\0');
    auto out = receiveOnRealRank(f, 100, [&] {
      auto h = frame(FrameType::Abort, 0, text.size(), transport::CallStamp{});
      h[5] = static_cast<std::uint8_t>(ErrorCode::Timeout);
      sendBytes(f.fake, h.data(), h.size());
      sendBytes(f.fake, text.data(), text.size());
    });
    EXPECT_EQ(out.code, ErrorCode::Timeout) << out.message;
    expectPrintableLine(out.message);
    EXPECT_NE(out.message.find("rank 1 aborted the collective: \\x1b[31mrank 5 is to blame\\x0d"),
              std::string::npos)
        << out.message;
    // At most kMaxPeerTextBytes of the text are shown, each as at most 4 characters.
    EXPECT_NE(out.message.find(" more bytes]"), std::string::npos) << out.message;
    EXPECT_LT(out.message.size(), 200 + 4 * kMaxPeerTextBytes) << out.message;
  }
}

// An address published under a rank's key is peer text too.
TEST(TcpHostile, ForgedPublishedAddressIsPrintedAsPrintableAscii) {
  auto store = bootstrap::makeMemoryStore();
  store->set(addressKey(0), "\x1b[31mevil\nhost\x01");
  auto out = onThreads(1, [&](int) { transport::connectTcp(1, 2, *store, tcpOptions(500ms)); });
  EXPECT_EQ(out[0].code, ErrorCode::Transport) << out[0].message;
  expectPrintableLine(out[0].message);
  EXPECT_NE(out[0].message.find("'\\x1b[31mevil\\x0ahost\\x01'"), std::string::npos)
      << out[0].message;
}

// Forty connections with a wrong token at a rank's data port during setup: at most
// kRefusedBurst lines are logged, and the rest are counted, in the log, to the last one.
TEST(TcpHostile, RefusedConnectionsAreRateLimitedWithACount) {
  constexpr int kAttempts = 40;
  auto store = bootstrap::makeMemoryStore();
  std::unique_ptr<Transport> t0, t1;
  testing::internal::CaptureStderr();
  std::thread rank0([&] { t0 = transport::connectTcp(0, 2, *store, tcpOptions()); });
  const std::string address = store->get(addressKey(0), 2s);
  {
    for (int i = 0; i < kAttempts; ++i)
      EXPECT_TRUE(refused(greetAt(address, 1, 2, "not-the-token")));
  }
  std::thread rank1([&] { t1 = transport::connectTcp(1, 2, *store, tcpOptions()); });
  rank0.join();
  rank1.join();
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(t0 && t1);
  int lines = 0;
  long counted = 0;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find("refused connection from") != std::string::npos) ++lines;
    const auto more = line.find(" more refused connection(s) not logged");
    if (more != std::string::npos) {
      const auto start = line.find_last_of(" (", more - 1) + 1;
      counted += std::stol(line.substr(start, more - start));
    }
  }
  EXPECT_LE(lines, bootstrap::net::kRefusedBurst) << log;
  EXPECT_EQ(lines + counted, kAttempts) << log;
}

// A hello captured from a real rank (the test plays the listener it connects to) and replayed at
// a real rank with the same token, on a new connection: refused, since it answers another
// challenge.
TEST(TcpHostile, CapturedHelloReplayedOnANewConnectionIsRefused) {
  namespace wire = bootstrap::wire;
  std::vector<std::uint8_t> captured(wire::kHelloBytes);
  wire::Challenge challenge;
  {
    auto fakeStore = bootstrap::makeMemoryStore();
    bootstrap::net::Socket listener = bootstrap::net::listenOn("127.0.0.1", 0, "test");
    fakeStore->set(addressKey(0),
                   "127.0.0.1:" + std::to_string(bootstrap::net::localPort(listener)));
    std::thread rank1([&] {
      try {
        transport::connectTcp(1, 2, *fakeStore, tcpOptions(1s));
      } catch (const Error&) {
        // the test never answers it
      }
    });
    pollfd p{listener.fd(), POLLIN, 0};
    ASSERT_EQ(::poll(&p, 1, 2000), 1);
    bootstrap::net::Socket victim(::accept4(listener.fd(), nullptr, nullptr, SOCK_NONBLOCK));
    challenge.nonce = bootstrap::handshake::freshNonce();
    std::uint8_t bytes[wire::kChallengeBytes];
    wire::encodeChallenge(challenge, bytes);
    sendBytes(victim, bytes, sizeof bytes);
    ASSERT_TRUE(bootstrap::net::recvAll(victim.fd(), captured.data(), captured.size(),
                                        bootstrap::net::Clock::now() + 2s, "test"));
    rank1.join();
  }
  // What was captured is a good hello for the challenge it answered.
  wire::Hello parsed;
  ASSERT_EQ(wire::parseHello(captured.data(), captured.size(), parsed), nullptr);
  ASSERT_EQ(parsed.proof, bootstrap::handshake::proofOf(captured.data(), kToken, challenge.nonce));

  auto store = bootstrap::makeMemoryStore();
  testing::internal::CaptureStderr();
  auto outcome = std::async(std::launch::async, [&] {
    return onThreads(1, [&](int) { transport::connectTcp(0, 2, *store, tcpOptions(1s)); })[0];
  });
  auto replay = dial(store->get(addressKey(0), 2s));
  std::vector<std::uint8_t> answer(wire::kChallengeBytes + wire::kHelloBytes);
  ASSERT_TRUE(bootstrap::net::recvAll(replay.fd(), answer.data(), wire::kChallengeBytes,
                                      bootstrap::net::Clock::now() + 2s, "test"));
  sendBytes(replay, captured.data(), captured.size());
  ASSERT_TRUE(bootstrap::net::recvAll(replay.fd(), answer.data() + wire::kChallengeBytes,
                                      wire::kHelloBytes, bootstrap::net::Clock::now() + 2s,
                                      "test"));
  ASSERT_EQ(wire::parseHello(answer.data() + wire::kChallengeBytes, wire::kHelloBytes, parsed),
            nullptr);
  EXPECT_EQ(parsed.status, wire::HelloStatus::Refused);
  const Outcome out = outcome.get();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out.code, ErrorCode::Timeout) << out.message;  // rank 1 never came
  EXPECT_NE(log.find("replayed from another connection"), std::string::npos) << log;
}

// --- Floods of connections without the token ------------------------------------------------

std::uint16_t portOf(const std::string& address) {
  return static_cast<std::uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
}

// 1100 idle connections from a stranger, with this process's descriptors nearly spent (fewer left
// than the strangers a listener may hold, so accept fails with EMFILE): rank 0, whose rank 1 never
// comes, still fails by its deadline, while the flood goes on, and its error names the flood.
TEST(TcpFlood, StrangersPastTheDescriptorLimitCannotHoldSetupPastItsDeadline) {
  constexpr auto kFloodHold = 8s;
  auto store = bootstrap::makeMemoryStore();
  testing::internal::CaptureStderr();
  const auto start = std::chrono::steady_clock::now();
  auto outcome = std::async(std::launch::async, [&] {
    return onThreads(1, [&](int) { transport::connectTcp(0, 2, *store, tcpOptions(1500ms)); })[0];
  });
  const std::uint16_t port = portOf(store->get(addressKey(0), 2s));
  Outcome out;
  {
    test::DescriptorLimit limit(24);
    test::StrangerFlood flood(port, 1100, kFloodHold);
    out = outcome.get();
  }
  const auto took = std::chrono::steady_clock::now() - start;
  testing::internal::GetCapturedStderr();
  EXPECT_LT(took, kFloodHold) << "setup outlived its deadline for as long as the flood lasted";
  EXPECT_EQ(out.code, ErrorCode::Timeout) << out.message;
  EXPECT_NE(out.message.find("rank(s) 1 did not connect"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("did not complete the handshake were refused or closed"),
            std::string::npos)
      << out.message;
  EXPECT_NE(out.message.find("of them from 127.0.0.1"), std::string::npos) << out.message;
  EXPECT_NE(out.message.find("ran out of file descriptors"), std::string::npos) << out.message;
}

// The same flood with room for the strangers a listener may hold: the job sets up and reduces.
TEST(TcpFlood, JobSetsUpUnderAFloodOfStrangers) {
  auto store = bootstrap::makeMemoryStore();
  testing::internal::CaptureStderr();
  std::vector<std::unique_ptr<Transport>> transports(2);
  auto rank0 = std::async(std::launch::async, [&] {
    return onThreads(
        1, [&](int) { transports[0] = transport::connectTcp(0, 2, *store, tcpOptions(5s)); })[0];
  });
  const std::uint16_t port = portOf(store->get(addressKey(0), 2s));
  Outcome out0, out1;
  {
    test::DescriptorLimit limit(static_cast<int>(bootstrap::handshake::kMaxStrangers) + 40);
    test::StrangerFlood flood(port, 1100, 8s);
    std::this_thread::sleep_for(300ms);  // the flood arrives first
    out1 = onThreads(
        1, [&](int) { transports[1] = transport::connectTcp(1, 2, *store, tcpOptions(5s)); })[0];
    out0 = rank0.get();
  }
  testing::internal::GetCapturedStderr();
  ASSERT_FALSE(out0.code) << out0.message;
  ASSERT_FALSE(out1.code) << out1.message;
  expectAllReduceSums(*transports[0], *transports[1]);
}

// --- Channels: several connections per pair of ranks ----------------------------------------

transport::TcpOptions channelOptions(int channels, std::chrono::milliseconds timeout = kTimeout) {
  transport::TcpOptions o = tcpOptions(timeout);
  o.channels = channels;
  return o;
}

TEST(TcpChannels, HelloCarriesTheChannelAndRefusesOneOutOfRange) {
  namespace wire = bootstrap::wire;
  wire::Hello parsed;
  auto bytes = hello(1, 3, 2, 3);
  ASSERT_EQ(wire::parseHello(bytes.data(), bytes.size(), parsed), nullptr);
  EXPECT_EQ(parsed.channel, 2);
  EXPECT_EQ(parsed.channels, 3);
  for (auto [channel, channels] : {std::pair{3, 3}, std::pair{1, 0}, std::pair{255, 16}}) {
    bytes = hello(1, 3, channel, channels);
    const char* why = wire::parseHello(bytes.data(), bytes.size(), parsed);
    ASSERT_NE(why, nullptr) << channel << " of " << channels;
    EXPECT_STREQ(why, "channel out of range");
  }
}

// Ranks set up with 2 and 3 channels: the one with 3 is refused, told why, and the other times
// out naming it; the listener's log names both numbers.
TEST(TcpChannels, RanksThatDisagreeOnTheNumberOfChannelsFailNamingIt) {
  auto store = bootstrap::makeMemoryStore();
  testing::internal::CaptureStderr();
  auto outcomes = onThreads(2, [&](int r) {
    transport::connectTcp(r, 2, *store, channelOptions(r == 0 ? 2 : 3, 500ms));
  });
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(outcomes[0].code, ErrorCode::Timeout) << outcomes[0].message;
  EXPECT_NE(outcomes[0].message.find("rank(s) 1 did not connect"), std::string::npos)
      << outcomes[0].message;
  EXPECT_EQ(outcomes[1].code, ErrorCode::Transport) << outcomes[1].message;
  EXPECT_NE(outcomes[1].message.find("RINGLAB_TCP_CHANNELS"), std::string::npos)
      << outcomes[1].message;
  EXPECT_NE(log.find("opens 3 channels per peer; this rank uses 2"), std::string::npos) << log;
}

// Every channel is authenticated on its own: with rank 1's first channel in, a second channel
// with the wrong token and a second claim to the first channel are refused and logged; the real
// second channel then completes the setup.
TEST(TcpChannels, EveryChannelPresentsTheToken) {
  auto store = bootstrap::makeMemoryStore();
  std::unique_ptr<Transport> t0;
  std::string error0;
  testing::internal::CaptureStderr();
  std::thread rank0([&] {
    try {
      t0 = transport::connectTcp(0, 2, *store, channelOptions(2));
    } catch (const std::exception& e) {
      error0 = e.what();
    }
  });
  const std::string address = store->get(addressKey(0), 2s);
  auto connectChannel = [&](int channel, const std::string& token) {
    auto g = greetAt(address, 1, 2, token, channel, 2);
    return std::pair{std::move(g.socket), !refused(g)};
  };
  auto first = connectChannel(0, kToken);
  EXPECT_TRUE(first.second);
  EXPECT_FALSE(connectChannel(1, "not-the-token").second);
  EXPECT_FALSE(connectChannel(0, kToken).second);
  auto second = connectChannel(1, kToken);
  EXPECT_TRUE(second.second);
  rank0.join();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(error0, "");
  EXPECT_TRUE(t0);
  EXPECT_NE(log.find("wrong token"), std::string::npos) << log;
  EXPECT_NE(log.find("claims rank 1 channel 0"), std::string::npos) << log;
}

TEST(TcpChannels, BadSettingsAreOneLineNamingTheValue) {
  auto store = bootstrap::makeMemoryStore();
  for (int channels : {0, transport::kMaxTcpChannels + 1}) {
    test::expectInvalid([&] { transport::connectTcp(0, 2, *store, channelOptions(channels)); },
                        {std::to_string(channels) + " channels per peer", "1 to 16"});
  }
  struct Case {
    const char* variable;
    const char* value;
    const char* valid;
  };
  for (const Case& c :
       {Case{"RINGLAB_TCP_CHANNELS", "0", "1..16"}, Case{"RINGLAB_TCP_CHANNELS", "17", "1..16"},
        Case{"RINGLAB_TCP_CHANNELS", "two", "1..16"}, Case{"RINGLAB_TCP_CHANNELS", "", "1..16"},
        Case{"RINGLAB_TCP_SOCKET_BUFFER", "lots", "such as 0"},
        Case{"RINGLAB_TCP_SOCKET_BUFFER", "2G", "at most 1G"}}) {
    setenv(c.variable, c.value, 1);
    transport::TcpOptions options;
    test::expectInvalid([&] { transport::applyTcpEnvironment(options); },
                        {std::string(c.variable) + "='" + c.value + "'", c.valid});
    unsetenv(c.variable);
  }
  setenv("RINGLAB_TCP_CHANNELS", "4", 1);
  setenv("RINGLAB_TCP_SOCKET_BUFFER", "2M", 1);
  setenv("RINGLAB_TCP_REDUCE_ON_RECEIVE", "0", 1);
  transport::TcpOptions options;
  options.reduceOnReceive = true;
  transport::applyTcpEnvironment(options);
  unsetenv("RINGLAB_TCP_CHANNELS");
  unsetenv("RINGLAB_TCP_SOCKET_BUFFER");
  unsetenv("RINGLAB_TCP_REDUCE_ON_RECEIVE");
  EXPECT_EQ(options.channels, 4);
  EXPECT_EQ(options.socketBufferBytes, 2u << 20);
  EXPECT_FALSE(options.reduceOnReceive);
}

}  // namespace
}  // namespace ringlab
