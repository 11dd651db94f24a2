// Rendezvous: the file store, the TCP store (tokens, hostile clients, errors within the timeout),
// and reading a launched rank's environment (RINGLAB_* and torchrun's variables).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/handshake.hpp"
#include "bootstrap/net.hpp"
#include "bootstrap/sha256.hpp"
#include "bootstrap/tcp_store.hpp"
#include "bootstrap/wire.hpp"
#include "expect_error.hpp"
#include "ringlab/bootstrap/rendezvous.hpp"
#include "ringlab/bootstrap/store.hpp"
#include "ringlab/core/error.hpp"
#include "stranger_flood.hpp"

namespace ringlab {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using bootstrap::Store;

using test::errorOf;
using test::kFailureSlack;

// Holds a listening socket on an ephemeral loopback port for the test's lifetime.
struct HeldPort {
  bootstrap::net::Socket socket = bootstrap::net::listenOn("127.0.0.1", 0, "test");
  std::uint16_t port = bootstrap::net::localPort(socket);
};

// A free port: bound and released (nothing listens on it afterwards).
std::uint16_t freePort() {
  HeldPort held;
  return held.port;
}

TEST(FileStore, OnlyTheLastPartOfThePathIsCreated) {
  // A mistyped path made every missing directory on it, wherever the user could write.
  const fs::path dir =
      fs::temp_directory_path() / ("ringlab-file-store-parent-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string deep = (dir / "a" / "b").string();
  try {
    bootstrap::openFileStore(deep);
    ADD_FAILURE() << "a store under a missing parent was opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Transport) << e.what();
    EXPECT_NE(std::string(e.what()).find("file store: directory '" + deep +
                                         "': its parent does not exist"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(dir));
  fs::remove_all(dir);
}

TEST(FileStore, SetGetWaitAndTimeout) {
  const fs::path dir =
      fs::temp_directory_path() / ("ringlab-file-store-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directory(dir);
  auto a = bootstrap::openFileStore((dir / "sub").string());  // created if missing
  auto b = bootstrap::openFileStore((dir / "sub").string());
  a->set("x", "1");
  EXPECT_EQ(b->get("x", 1s), "1");
  a->set("x", "22");
  EXPECT_EQ(b->get("x", 1s), "22");
  const std::string binary("a\0b/\n%", 6);
  b->set("dir/key with spaces/%2F", binary);
  EXPECT_EQ(a->get("dir/key with spaces/%2F", 1s), binary);
  // A reader waits for a later writer.
  std::thread writer([&] {
    std::this_thread::sleep_for(50ms);
    a->set("late", "v");
  });
  EXPECT_EQ(b->get("late", 2s), "v");
  writer.join();
  const auto start = std::chrono::steady_clock::now();
  Error e = errorOf([&] { b->get("never", 200ms); });
  EXPECT_EQ(e.code(), ErrorCode::Timeout);
  EXPECT_NE(std::string(e.what()).find("'never'"), std::string::npos) << e.what();
  EXPECT_LT(std::chrono::steady_clock::now() - start, kFailureSlack);
  bootstrap::barrier(*a, "b", 0, 1, 1s);
  fs::remove_all(dir);
}

bootstrap::TcpStoreOptions storeOptions(std::uint16_t port, int rank,
                                        const std::string& token = "store-token") {
  bootstrap::TcpStoreOptions o;
  o.host = "127.0.0.1";
  o.port = port;
  o.serve = rank == 0;
  o.rank = rank;
  o.size = 3;
  o.token = token;
  o.timeout = 2s;
  return o;
}

TEST(TcpStore, SetGetWaitBarrierAndTimeout) {
  const std::uint16_t port = freePort();
  auto server = bootstrap::openTcpStore(storeOptions(port, 0));
  auto one = bootstrap::openTcpStore(storeOptions(port, 1));
  auto two = bootstrap::openTcpStore(storeOptions(port, 2));
  server->set("x", "1");
  EXPECT_EQ(one->get("x", 1s), "1");
  one->set("x", "2");
  EXPECT_EQ(two->get("x", 1s), "2");
  const std::string binary("a\0b/\n", 5);
  two->set("k/with/slashes", binary);
  EXPECT_EQ(server->get("k/with/slashes", 1s), binary);
  std::thread writer([&] {
    std::this_thread::sleep_for(50ms);
    two->set("late", std::string(100000, 'v'));
  });
  EXPECT_EQ(one->get("late", 2s), std::string(100000, 'v'));
  writer.join();
  std::vector<std::thread> ranks;
  Store* stores[3] = {server.get(), one.get(), two.get()};
  for (int r = 0; r < 3; ++r)
    ranks.emplace_back([&, r] { bootstrap::barrier(*stores[r], "all", r, 3, 2s); });
  for (auto& t : ranks) t.join();
  const auto start = std::chrono::steady_clock::now();
  Error e = errorOf([&] { one->get("never", 300ms); });
  EXPECT_EQ(e.code(), ErrorCode::Timeout) << e.what();
  EXPECT_LT(std::chrono::steady_clock::now() - start, kFailureSlack);
  // The connection is still good after a timed-out get.
  EXPECT_EQ(one->get("x", 1s), "2");
}

TEST(TcpStore, WrongTokenGarbageAndTruncatedHellosAreRefusedAndLogged) {
  const std::uint16_t port = freePort();
  testing::internal::CaptureStderr();
  auto server = bootstrap::openTcpStore(storeOptions(port, 0));
  Error wrong = errorOf([&] { bootstrap::openTcpStore(storeOptions(port, 1, "wrong")); });
  EXPECT_EQ(wrong.code(), ErrorCode::Transport) << wrong.what();
  EXPECT_NE(std::string(wrong.what()).find("RINGLAB_TOKEN"), std::string::npos) << wrong.what();
  const auto deadline = bootstrap::net::Clock::now() + 1s;
  {
    auto garbage = bootstrap::net::connectTo("127.0.0.1", port, deadline, "test");
    std::vector<std::uint8_t> junk(5000, 0xab);
    bootstrap::net::sendAll(garbage.fd(), junk.data(), junk.size(), deadline, "test");
    auto truncated = bootstrap::net::connectTo("127.0.0.1", port, deadline, "test");
    std::vector<std::uint8_t> half(bootstrap::wire::kHelloBytes / 2, 0);
    bootstrap::net::sendAll(truncated.fd(), half.data(), half.size(), deadline, "test");
    // An authenticated client that then sends a bad request is dropped, the store lives on.
    bootstrap::wire::Hello h;
    h.kind = bootstrap::wire::HelloKind::StoreClient;
    h.rank = 1;
    h.size = 2;
    auto rude =
        bootstrap::handshake::connectAndGreet("127.0.0.1", port, h, "store-token", deadline, "test")
            .socket;
    std::vector<std::uint8_t> request(16, 0xff);
    bootstrap::net::sendAll(rude.fd(), request.data(), request.size(), deadline, "test");
    std::this_thread::sleep_for(200ms);
  }
  auto good = bootstrap::openTcpStore(storeOptions(port, 1));
  good->set("still", "alive");
  EXPECT_EQ(server->get("still", 1s), "alive");
  std::this_thread::sleep_for(50ms);
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("wrong token"), std::string::npos) << log;
  EXPECT_NE(log.find("not a ringlab hello"), std::string::npos) << log;
  EXPECT_NE(log.find("before completing the handshake"), std::string::npos) << log;
  EXPECT_NE(log.find("dropped client 127.0.0.1:"), std::string::npos) << log;
  EXPECT_NE(log.find("refused connection from 127.0.0.1:"), std::string::npos) << log;
}

// A store client's hello captured (the test plays the store it connects to) and replayed at a
// real store with the same token, on a new connection: refused, since it answers another challenge.
TEST(TcpStore, CapturedHelloReplayedOnANewConnectionIsRefused) {
  namespace wire = bootstrap::wire;
  std::vector<std::uint8_t> captured(wire::kHelloBytes);
  wire::Challenge challenge;
  {
    HeldPort fakeStore;
    auto client = std::async(std::launch::async, [&] {
      bootstrap::TcpStoreOptions o = storeOptions(fakeStore.port, 1);
      o.timeout = 1s;
      return errorOf([&] { bootstrap::openTcpStore(o); });
    });
    pollfd p{fakeStore.socket.fd(), POLLIN, 0};
    ASSERT_EQ(::poll(&p, 1, 2000), 1);
    bootstrap::net::Socket victim(::accept4(fakeStore.socket.fd(), nullptr, nullptr, 0));
    challenge.nonce = bootstrap::handshake::freshNonce();
    std::uint8_t bytes[wire::kChallengeBytes];
    wire::encodeChallenge(challenge, bytes);
    const auto deadline = bootstrap::net::Clock::now() + 2s;
    ASSERT_TRUE(bootstrap::net::sendAll(victim.fd(), bytes, sizeof bytes, deadline, "test"));
    ASSERT_TRUE(
        bootstrap::net::recvAll(victim.fd(), captured.data(), captured.size(), deadline, "test"));
    victim.reset();
    client.get();  // it times out: the test never answers
  }
  wire::Hello parsed;
  ASSERT_EQ(wire::parseHello(captured.data(), captured.size(), parsed), nullptr);
  ASSERT_EQ(parsed.proof,
            bootstrap::handshake::proofOf(captured.data(), "store-token", challenge.nonce));

  const std::uint16_t port = freePort();
  testing::internal::CaptureStderr();
  auto server = bootstrap::openTcpStore(storeOptions(port, 0));
  const auto deadline = bootstrap::net::Clock::now() + 2s;
  auto replay = bootstrap::net::connectTo("127.0.0.1", port, deadline, "test");
  std::uint8_t bytes[wire::kChallengeBytes];
  ASSERT_TRUE(bootstrap::net::recvAll(replay.fd(), bytes, sizeof bytes, deadline, "test"));
  ASSERT_TRUE(
      bootstrap::net::sendAll(replay.fd(), captured.data(), captured.size(), deadline, "test"));
  std::vector<std::uint8_t> answer(wire::kHelloBytes);
  ASSERT_TRUE(bootstrap::net::recvAll(replay.fd(), answer.data(), answer.size(), deadline, "test"));
  ASSERT_EQ(wire::parseHello(answer.data(), answer.size(), parsed), nullptr);
  EXPECT_EQ(parsed.status, wire::HelloStatus::Refused);
  server.reset();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("replayed from another connection"), std::string::npos) << log;
}

// 1100 idle connections from a stranger at the store, with this process's descriptors nearly
// spent (room for the strangers the store may hold, and a few): ranks still open the store, set
// and get.
TEST(TcpStore, FloodOfStrangersDoesNotKeepRanksOut) {
  const std::uint16_t port = freePort();
  testing::internal::CaptureStderr();
  auto server = bootstrap::openTcpStore(storeOptions(port, 0));
  {
    test::DescriptorLimit limit(static_cast<int>(bootstrap::handshake::kMaxStrangers) + 40);
    test::StrangerFlood flood(port, 1100, 8s);
    std::this_thread::sleep_for(300ms);  // the flood arrives first
    auto one = bootstrap::openTcpStore(storeOptions(port, 1));
    auto two = bootstrap::openTcpStore(storeOptions(port, 2));
    one->set("x", "1");
    EXPECT_EQ(two->get("x", 1s), "1");
  }
  server.reset();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("closed to make room"), std::string::npos) << log;
}

// FIPS 180-2's examples (appendix B) and the empty message.
TEST(Sha256, FipsExamples) {
  const auto hex = [](const bootstrap::Sha256Digest& d) {
    std::string out;
    for (std::uint8_t b : d) out += "0123456789abcdef"[b >> 4], out += "0123456789abcdef"[b & 15];
    return out;
  };
  EXPECT_EQ(hex(bootstrap::sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(bootstrap::sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(bootstrap::sha256(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(hex(bootstrap::sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // 55, 56 and 64 bytes: where the padding needs one block or two.
  EXPECT_EQ(hex(bootstrap::sha256(std::string(55, 'a'))),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(hex(bootstrap::sha256(std::string(56, 'a'))),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(hex(bootstrap::sha256(std::string(64, 'a'))),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

// RFC 4231's test cases 1, 2, 3, 4, 6 and 7 (5 truncates the output, which ringlab never does).
TEST(HmacSha256, Rfc4231TestCases) {
  const auto bytes = [](const std::string& hex) {
    std::string out;
    for (std::size_t i = 0; i < hex.size(); i += 2)
      out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
  };
  const auto mac = [](const std::string& key, const std::string& data) {
    const bootstrap::Sha256Digest d = bootstrap::hmacSha256(key, data);
    std::string out;
    for (std::uint8_t b : d) out += "0123456789abcdef"[b >> 4], out += "0123456789abcdef"[b & 15];
    return out;
  };
  EXPECT_EQ(mac(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(mac("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(mac(std::string(20, '\xaa'), std::string(50, '\xdd')),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
  EXPECT_EQ(
      mac(bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"), std::string(50, '\xcd')),
      "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
  EXPECT_EQ(mac(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_EQ(mac(std::string(131, '\xaa'),
                "This is a test using a larger than block-size key and a larger than block-size "
                "data. The key needs to be hashed before being used by the HMAC algorithm."),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
  EXPECT_TRUE(bootstrap::digestsEqual(bootstrap::sha256("x"), bootstrap::sha256("x")));
  EXPECT_FALSE(bootstrap::digestsEqual(bootstrap::sha256("x"), bootstrap::sha256("y")));
}

bootstrap::RankEnvironment tcpEnvironment(std::uint16_t port, int rank) {
  bootstrap::RankEnvironment env;
  env.rank = rank;
  env.size = 2;
  env.rendezvous = "tcp://127.0.0.1:" + std::to_string(port);
  env.token = "t";
  return env;
}

TEST(OpenStore, PortInUseIsTransportError) {
  HeldPort held;
  const auto start = std::chrono::steady_clock::now();
  Error e = errorOf([&] { bootstrap::openStore(tcpEnvironment(held.port, 0), 1s); });
  EXPECT_EQ(e.code(), ErrorCode::Transport) << e.what();
  EXPECT_NE(std::string(e.what()).find("already in use"), std::string::npos) << e.what();
  EXPECT_LT(std::chrono::steady_clock::now() - start, kFailureSlack);
}

TEST(OpenStore, UnreachableRendezvousFailsWithinTheTimeout) {
  const std::uint16_t port = freePort();  // nobody listens there
  const auto start = std::chrono::steady_clock::now();
  Error e = errorOf([&] { bootstrap::openStore(tcpEnvironment(port, 1), 500ms); });
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(e.code(), ErrorCode::Transport) << e.what();
  EXPECT_NE(std::string(e.what()).find("cannot connect to 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << e.what();
  EXPECT_GE(took, 400ms);
  EXPECT_LT(took, kFailureSlack);
}

TEST(OpenStore, ServerThatNeverAnswersIsTimeout) {
  HeldPort held;  // listening, but never accepts or answers
  const auto start = std::chrono::steady_clock::now();
  Error e = errorOf([&] { bootstrap::openStore(tcpEnvironment(held.port, 1), 400ms); });
  EXPECT_EQ(e.code(), ErrorCode::Timeout) << e.what();
  EXPECT_LT(std::chrono::steady_clock::now() - start, kFailureSlack);
}

TEST(OpenStore, TcpAndFileUrlsAndBadUrls) {
  const std::uint16_t port = freePort();
  auto zero = bootstrap::openStore(tcpEnvironment(port, 0), 2s);
  auto one = bootstrap::openStore(tcpEnvironment(port, 1), 2s);
  zero->set("k", "v");
  EXPECT_EQ(one->get("k", 1s), "v");
  bootstrap::RankEnvironment env = tcpEnvironment(port, 1);
  env.token.clear();
  EXPECT_EQ(errorOf([&] { bootstrap::openStore(env, 1s); }).code(), ErrorCode::InvalidArgument);
  for (const char* bad :
       {"tcp://nohostport", "tcp://h:0", "tcp://h:70000", "udp://h:1", "file://relative", ""}) {
    env = tcpEnvironment(port, 1);
    env.rendezvous = bad;
    EXPECT_EQ(errorOf([&] { bootstrap::openStore(env, 1s); }).code(), ErrorCode::InvalidArgument)
        << bad;
  }
  const fs::path dir =
      fs::temp_directory_path() / ("ringlab-open-store-" + std::to_string(::getpid()));
  env.rendezvous = "file://" + dir.string();
  auto file = bootstrap::openStore(env, 1s);
  file->set("a", "b");
  EXPECT_EQ(file->get("a", 1s), "b");
  fs::remove_all(dir);
}

// Sets exactly the given variables (clearing every other one the parser reads) for one test.
class Environment {
 public:
  explicit Environment(const std::map<std::string, std::string>& values) {
    for (const char* name : kNames) {
      if (const char* v = std::getenv(name)) saved_[name] = v;
      ::unsetenv(name);
    }
    for (const auto& [k, v] : values) ::setenv(k.c_str(), v.c_str(), 1);
  }
  ~Environment() {
    for (const char* name : kNames) ::unsetenv(name);
    for (const auto& [k, v] : saved_) ::setenv(k.c_str(), v.c_str(), 1);
  }

 private:
  static constexpr const char* kNames[] = {"RINGLAB_RANK",
                                           "RINGLAB_WORLD_SIZE",
                                           "RINGLAB_RENDEZVOUS",
                                           "RINGLAB_TOKEN",
                                           "RINGLAB_JOB",
                                           "RINGLAB_BIND",
                                           "RANK",
                                           "WORLD_SIZE",
                                           "MASTER_ADDR",
                                           "MASTER_PORT",
                                           "TORCHELASTIC_USE_AGENT_STORE"};
  std::map<std::string, std::string> saved_;
};

TEST(RankEnvironment, NotALaunchedRank) {
  Environment env({});
  EXPECT_FALSE(bootstrap::rankEnvironmentFromEnv());
}

TEST(RankEnvironment, RinglabVariables) {
  Environment env({{"RINGLAB_RANK", "2"},
                   {"RINGLAB_WORLD_SIZE", "4"},
                   {"RINGLAB_RENDEZVOUS", "tcp://node0:29500"},
                   {"RINGLAB_TOKEN", "secret"},
                   {"RINGLAB_JOB", "job-7"},
                   {"RINGLAB_BIND", "10.0.0.2"},
                   {"RANK", "0"},
                   {"WORLD_SIZE", "9"}});  // ringlab's own take precedence
  auto e = bootstrap::rankEnvironmentFromEnv();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rank, 2);
  EXPECT_EQ(e->size, 4);
  EXPECT_EQ(e->rendezvous, "tcp://node0:29500");
  EXPECT_EQ(e->token, "secret");
  EXPECT_EQ(e->job, "job-7");
  EXPECT_EQ(e->bindHost, "10.0.0.2");
}

TEST(RankEnvironment, TorchrunVariables) {
  Environment env(
      {{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29500"}});
  auto e = bootstrap::rankEnvironmentFromEnv();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rank, 1);
  EXPECT_EQ(e->size, 2);
  EXPECT_EQ(e->rendezvous, "tcp://127.0.0.1:29500");
  EXPECT_EQ(e->bindHost, "127.0.0.1");
  Environment v6(
      {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "::1"}, {"MASTER_PORT", "29500"}});
  EXPECT_EQ(bootstrap::rankEnvironmentFromEnv()->rendezvous, "tcp://[::1]:29500");
  // Under torchrun's agent store, which serves MASTER_PORT itself, ringlab takes the next port.
  Environment agent({{"RANK", "0"},
                     {"WORLD_SIZE", "2"},
                     {"MASTER_ADDR", "127.0.0.1"},
                     {"MASTER_PORT", "29500"},
                     {"TORCHELASTIC_USE_AGENT_STORE", "True"}});
  EXPECT_EQ(bootstrap::rankEnvironmentFromEnv()->rendezvous, "tcp://127.0.0.1:29501");
  Environment agentAtTheTop({{"RANK", "0"},
                             {"WORLD_SIZE", "2"},
                             {"MASTER_ADDR", "127.0.0.1"},
                             {"MASTER_PORT", "65535"},
                             {"TORCHELASTIC_USE_AGENT_STORE", "True"}});
  EXPECT_THROW(bootstrap::rankEnvironmentFromEnv(), Error);
  Environment single({{"RANK", "0"}, {"WORLD_SIZE", "1"}});  // p = 1 needs no rendezvous
  EXPECT_EQ(bootstrap::rankEnvironmentFromEnv()->size, 1);
}

TEST(RankEnvironment, EveryBadValueNamesItsVariable) {
  const std::map<std::string, std::string> good = {{"RINGLAB_RANK", "0"},
                                                   {"RINGLAB_WORLD_SIZE", "2"},
                                                   {"RINGLAB_RENDEZVOUS", "tcp://127.0.0.1:29500"}};
  struct Case {
    std::string variable;
    std::optional<std::string> value;  // nullopt: unset it
  };
  const std::vector<Case> cases = {
      {"RINGLAB_RANK", "-1"},
      {"RINGLAB_RANK", "2"},
      {"RINGLAB_RANK", "x"},
      {"RINGLAB_RANK", ""},
      {"RINGLAB_RANK", "1 "},
      {"RINGLAB_WORLD_SIZE", "0"},
      {"RINGLAB_WORLD_SIZE", "abc"},
      {"RINGLAB_WORLD_SIZE", std::nullopt},
      {"RINGLAB_WORLD_SIZE", "99999999999999999999"},
      {"RINGLAB_RENDEZVOUS", "http://x:1"},
      {"RINGLAB_RENDEZVOUS", "tcp://host"},
      {"RINGLAB_RENDEZVOUS", "tcp://host:0"},
      {"RINGLAB_RENDEZVOUS", "tcp://host:65536"},
      {"RINGLAB_RENDEZVOUS", "tcp://:80"},
      {"RINGLAB_RENDEZVOUS", "tcp://ho st:80"},
      {"RINGLAB_RENDEZVOUS", "file://relative/dir"},
      {"RINGLAB_RENDEZVOUS", std::nullopt},
      {"RINGLAB_TOKEN", ""},
      {"RINGLAB_TOKEN", std::string(300, 'x')},
      {"RINGLAB_JOB", "a/b"},
      {"RINGLAB_JOB", ""},
      {"RINGLAB_BIND", ""},
      {"RINGLAB_BIND", "1.2.3.4; rm"},
  };
  for (const Case& c : cases) {
    std::map<std::string, std::string> values = good;
    if (c.value) {
      values[c.variable] = *c.value;
    } else {
      values.erase(c.variable);
    }
    Environment env(values);
    Error e = errorOf([] { bootstrap::rankEnvironmentFromEnv(); });
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument)
        << c.variable << "=" << c.value.value_or("<unset>") << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(c.variable), std::string::npos)
        << c.variable << "=" << c.value.value_or("<unset>") << ": " << e.what();
  }
  // torchrun's: each half of the pair, and bad values.
  const std::vector<std::map<std::string, std::string>> torch = {
      {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}},
      {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}},
      {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "port"}},
      {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h h"}, {"MASTER_PORT", "1"}},
      {{"RANK", "3"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}},
      {{"RANK", "0"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}},
  };
  const std::vector<std::string> named = {"MASTER_PORT", "MASTER_ADDR", "MASTER_PORT",
                                          "MASTER_ADDR", "RANK",        "WORLD_SIZE"};
  for (std::size_t i = 0; i < torch.size(); ++i) {
    Environment env(torch[i]);
    Error e = errorOf([] { bootstrap::rankEnvironmentFromEnv(); });
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << i << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(named[i]), std::string::npos) << i << ": " << e.what();
  }
}

}  // namespace
}  // namespace ringlab
