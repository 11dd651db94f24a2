#include "bootstrap/tcp_store.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "bootstrap/handshake.hpp"
#include "bootstrap/net.hpp"
#include "bootstrap/wire.hpp"
#include "ringlab/core/error.hpp"

namespace ringlab::bootstrap {
namespace {

using net::Clock;
using net::Socket;
namespace w = wire;

// Serves the key-value space from one thread: poll over the listener and every client. A client
// is served once its hello proved the job token (handshake::Doorman); until then it is a stranger,
// bounded in number and time.
class StoreServer {
 public:
  StoreServer(Socket listener, const std::string& token, std::string where)
      : listener_(std::move(listener)),
        where_(std::move(where)),
        doorman_(listener_, token, w::HelloKind::StoreClient, where_),
        wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (!wake_.valid()) throw Error(ErrorCode::Transport, "eventfd: " + net::errnoText(errno));
    thread_ = std::thread([this] { run(); });
  }

  ~StoreServer() {
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_.fd(), &one, sizeof one);
    thread_.join();
  }

 private:
  struct Client {
    Socket socket;
    std::string peer;
    std::vector<std::uint8_t> in;
    std::vector<std::uint8_t> out;
    std::size_t outSent = 0;
    bool waiting = false;  // a GET waits for its key
    std::string waitKey;
    Clock::time_point waitDeadline;
  };

  void run() {
    std::vector<pollfd> fds;
    for (;;) {
      fds.clear();
      fds.push_back({wake_.fd(), POLLIN, 0});
      doorman_.watch(fds);
      const std::size_t firstClient = fds.size();
      Clock::time_point next = doorman_.nextDeadline();
      for (auto& c : clients_) {
        short events = 0;
        if (!c->waiting) events |= POLLIN;
        if (c->outSent < c->out.size()) events |= POLLOUT;
        fds.push_back({c->socket.fd(), events, 0});
        if (c->waiting) next = std::min(next, c->waitDeadline);
      }
      const int timeoutMs =
          next == Clock::time_point::max() ? -1 : net::millisecondsUntil(next) + 1;
      if (::poll(fds.data(), fds.size(), timeoutMs) < 0 && errno != EINTR) return;
      if (fds[0].revents) return;  // shutting down
      const auto now = Clock::now();
      for (std::size_t i = 0; i < clients_.size(); ++i) {
        Client& c = *clients_[i];
        const short revents = fds[firstClient + i].revents;
        bool keep = true;
        if (revents & (POLLIN | POLLHUP | POLLERR)) keep = readFrom(c);
        if (keep && c.waiting) answerWait(c, now);
        if (keep && c.outSent < c.out.size()) keep = writeTo(c);
        if (!keep) c.socket.reset();
      }
      for (handshake::Arrival& arrival : doorman_.serve(fds)) {
        if (!doorman_.answer(arrival, storeAnswer())) continue;
        auto c = std::make_unique<Client>();
        c->socket = std::move(arrival.socket);
        c->peer = std::move(arrival.peer);
        clients_.push_back(std::move(c));
      }
      std::erase_if(clients_, [](const std::unique_ptr<Client>& c) { return !c->socket.valid(); });
      // A SET may satisfy GETs waiting on other clients.
      for (auto& c : clients_) {
        if (c->waiting) answerWait(*c, Clock::now());
        if (c->outSent < c->out.size() && !writeTo(*c)) c->socket.reset();
      }
      std::erase_if(clients_, [](const std::unique_ptr<Client>& c) { return !c->socket.valid(); });
    }
  }

  static w::Hello storeAnswer() {
    w::Hello hello;
    hello.rank = 0;
    hello.size = 1;
    return hello;
  }

  // Returns false when the client is to be dropped.
  bool readFrom(Client& c) {
    std::uint8_t buffer[65536];
    for (;;) {
      const ssize_t n = ::recv(c.socket.fd(), buffer, sizeof buffer, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        return false;
      if (n < 0) return true;
      c.in.insert(c.in.end(), buffer, buffer + n);
      if (!process(c)) return false;
      if (c.waiting) return true;
    }
  }

  bool process(Client& c) {
    for (;;) {
      if (c.waiting || c.in.size() < w::kStoreHeaderBytes) return true;
      w::StoreRequestHeader header;
      if (const char* bad = w::parseStoreRequestHeader(c.in.data(), w::kStoreHeaderBytes, header)) {
        std::fputs(
            ("ringlab: " + where_ + ": dropped client " + c.peer + ": " + bad + "\n").c_str(),
            stderr);
        return false;
      }
      const std::size_t need = w::kStoreHeaderBytes + header.keyBytes + header.valueBytes;
      if (c.in.size() < need) return true;
      const char* key = reinterpret_cast<const char*>(c.in.data() + w::kStoreHeaderBytes);
      std::string k(key, header.keyBytes);
      if (header.op == w::StoreOp::Set) {
        values_[k].assign(key + header.keyBytes, header.valueBytes);
        w::StoreReplyHeader r;
        r.status = w::StoreStatus::Ok;
        appendReply(c, r, {});
      } else {
        c.waiting = true;
        c.waitKey = std::move(k);
        c.waitDeadline = Clock::now() + std::chrono::milliseconds(header.waitMs);
      }
      c.in.erase(c.in.begin(), c.in.begin() + static_cast<std::ptrdiff_t>(need));
    }
  }

  void answerWait(Client& c, Clock::time_point now) {
    auto it = values_.find(c.waitKey);
    w::StoreReplyHeader r;
    if (it != values_.end()) {
      r.status = w::StoreStatus::Value;
      r.valueBytes = static_cast<std::uint32_t>(it->second.size());
      appendReply(c, r, it->second);
    } else if (now >= c.waitDeadline) {
      r.status = w::StoreStatus::NotFound;
      appendReply(c, r, {});
    } else {
      return;
    }
    c.waiting = false;
    // Requests the client sent meanwhile are served now.
    if (!process(c)) c.socket.reset();
  }

  void appendReply(Client& c, const w::StoreReplyHeader& header, const std::string& value) {
    const std::size_t at = c.out.size();
    c.out.resize(at + w::kStoreReplyBytes);
    w::encodeStoreReplyHeader(header, c.out.data() + at);
    c.out.insert(c.out.end(), value.begin(), value.end());
  }

  bool writeTo(Client& c) {
    while (c.outSent < c.out.size()) {
      const ssize_t n =
          ::send(c.socket.fd(), c.out.data() + c.outSent, c.out.size() - c.outSent, MSG_NOSIGNAL);
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      c.outSent += static_cast<std::size_t>(n);
    }
    c.out.clear();
    c.outSent = 0;
    return true;
  }

  Socket listener_;
  std::string where_;
  handshake::Doorman doorman_;
  Socket wake_;
  std::vector<std::unique_ptr<Client>> clients_;
  std::map<std::string, std::string> values_;
  std::thread thread_;
};

class TcpStoreClient final : public Store {
 public:
  TcpStoreClient(const TcpStoreOptions& o, std::unique_ptr<StoreServer> server)
      : server_(std::move(server)),
        where_("rendezvous tcp://" + o.host + ":" + std::to_string(o.port)),
        timeout_(o.timeout) {
    w::Hello hello;
    hello.kind = w::HelloKind::StoreClient;
    hello.rank = static_cast<std::uint32_t>(o.rank);
    hello.size = static_cast<std::uint32_t>(o.size);
    handshake::Greeted greeted = handshake::connectAndGreet(o.host, o.port, hello, o.token,
                                                            Clock::now() + o.timeout, where_);
    if (greeted.answer.status != w::HelloStatus::Ok) {
      throw Error(ErrorCode::Transport, where_ +
                                            ": the store refused this rank's token; every "
                                            "rank must have the same RINGLAB_TOKEN");
    }
    socket_ = std::move(greeted.socket);
  }

  ~TcpStoreClient() override {
    socket_.reset();  // before the server, which rank 0 owns, goes
    server_.reset();
  }

  void set(const std::string& key, const std::string& value) override {
    checkKey(key);
    if (value.size() > w::kMaxValueBytes) {
      throwInvalid(where_ + ": value of key '" + key + "' is " + std::to_string(value.size()) +
                   " bytes; at most " + std::to_string(w::kMaxValueBytes) + " are allowed");
    }
    std::lock_guard lock(mutex_);
    w::StoreRequestHeader header;
    header.op = w::StoreOp::Set;
    header.keyBytes = static_cast<std::uint32_t>(key.size());
    header.valueBytes = static_cast<std::uint32_t>(value.size());
    const auto deadline = Clock::now() + timeout_;
    request(header, key, value, deadline, "set '" + key + "'");
    const w::StoreReplyHeader r = readReply(deadline, "set '" + key + "'");
    if (r.status != w::StoreStatus::Ok) fail("set '" + key + "': unexpected reply");
  }

  std::string get(const std::string& key, std::chrono::milliseconds timeout) override {
    checkKey(key);
    std::lock_guard lock(mutex_);
    w::StoreRequestHeader header;
    header.op = w::StoreOp::Get;
    header.keyBytes = static_cast<std::uint32_t>(key.size());
    header.waitMs =
        static_cast<std::uint32_t>(std::clamp<long long>(timeout.count(), 0, w::kMaxGetWaitMs));
    // The server answers NotFound at the timeout; the grace covers the trip back.
    const auto deadline = Clock::now() + timeout + std::chrono::milliseconds(250);
    request(header, key, {}, deadline, "get '" + key + "'");
    const w::StoreReplyHeader r = readReply(deadline, "get '" + key + "'");
    if (r.status == w::StoreStatus::NotFound) {
      throw Error(ErrorCode::Timeout, "rendezvous key '" + key + "' not set within " +
                                          std::to_string(timeout.count()) + " ms (" + where_ +
                                          "); are all ranks started?");
    }
    if (r.status != w::StoreStatus::Value) fail("get '" + key + "': unexpected reply");
    std::string value(r.valueBytes, '\0');
    receive(value.data(), value.size(), deadline, "get '" + key + "'");
    return value;
  }

 private:
  void checkKey(const std::string& key) const {
    if (key.empty() || key.size() > w::kMaxKeyBytes) {
      throwInvalid(where_ + ": key of " + std::to_string(key.size()) +
                   " bytes; keys must have 1 to " + std::to_string(w::kMaxKeyBytes) + " bytes");
    }
  }

  [[noreturn]] void fail(const std::string& what) {
    socket_.reset();
    throw Error(ErrorCode::Transport, where_ + ": " + what);
  }

  void usable(const std::string& what) {
    if (!socket_.valid()) {
      throw Error(ErrorCode::Transport, where_ + ": " + what +
                                            ": the connection to the store was "
                                            "lost by an earlier failure");
    }
  }

  void request(const w::StoreRequestHeader& header, const std::string& key,
               const std::string& value, Clock::time_point deadline, const std::string& what) {
    usable(what);
    std::uint8_t h[w::kStoreHeaderBytes];
    w::encodeStoreRequestHeader(header, h);
    std::string message(reinterpret_cast<char*>(h), sizeof h);
    message += key;
    message += value;
    bool ok;
    try {
      ok = net::sendAll(socket_.fd(), message.data(), message.size(), deadline, where_);
    } catch (const Error& e) {
      fail(what + ": " + e.what());
    }
    if (!ok) timedOut(what);
  }

  void receive(void* data, std::size_t bytes, Clock::time_point deadline, const std::string& what) {
    bool ok;
    try {
      ok = net::recvAll(socket_.fd(), data, bytes, deadline, where_);
    } catch (const Error& e) {
      fail(what + ": " + e.what() + " (did rank 0 exit?)");
    }
    if (!ok) timedOut(what);
  }

  [[noreturn]] void timedOut(const std::string& what) {
    // A late answer would be taken for the next request's: this connection is done.
    socket_.reset();
    throw Error(ErrorCode::Timeout, where_ + ": " + what + ": the store did not answer in time");
  }

  w::StoreReplyHeader readReply(Clock::time_point deadline, const std::string& what) {
    std::uint8_t h[w::kStoreReplyBytes];
    receive(h, sizeof h, deadline, what);
    w::StoreReplyHeader r;
    if (const char* bad = w::parseStoreReplyHeader(h, sizeof h, r)) fail(what + ": " + bad);
    return r;
  }

  std::unique_ptr<StoreServer> server_;
  std::string where_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  Socket socket_;
};

}  // namespace

std::unique_ptr<Store> openTcpStore(const TcpStoreOptions& options) {
  if (options.token.empty()) {
    throwInvalid(
        "RINGLAB_TOKEN is not set: the TCP rendezvous needs a job token that every rank "
        "shares (any secret string, e.g. from `openssl rand -hex 16`)");
  }
  if (options.token.size() > wire::kMaxTokenBytes) {
    throwInvalid("RINGLAB_TOKEN has " + std::to_string(options.token.size()) + " bytes; at most " +
                 std::to_string(wire::kMaxTokenBytes) + " are allowed");
  }
  std::unique_ptr<StoreServer> server;
  const std::string where = "rendezvous tcp://" + options.host + ":" + std::to_string(options.port);
  if (options.serve) {
    server = std::make_unique<StoreServer>(net::listenOn(options.host, options.port, where),
                                           options.token, where + " (store)");
  }
  return std::make_unique<TcpStoreClient>(options, std::move(server));
}

}  // namespace ringlab::bootstrap
