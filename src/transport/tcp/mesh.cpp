#include "transport/tcp/mesh.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>

#include "bootstrap/wire.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/transport/fault_injection.hpp"
#include "transport/tcp/frame.hpp"

namespace ringlab::transport::tcp {
namespace {

namespace net = bootstrap::net;
namespace wire = bootstrap::wire;
using net::Clock;

std::string addressKey(int rank) {
  return "ringlab/tcp/address/" + std::to_string(rank);
}

// The host peers should dial: the bind address itself, or this machine's name for a wildcard.
std::string publishedHost(const std::string& bindHost) {
  if (bindHost == "0.0.0.0" || bindHost == "::" || bindHost.empty()) {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0 && name[0]) return name;
  }
  return bindHost;
}

std::string joinHostPort(const std::string& host, std::uint16_t port) {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(port);
}

void splitHostPort(const std::string& text, std::string& host, std::uint16_t& port, int peer) {
  const auto colon = text.rfind(':');
  unsigned long value = 0;
  bool ok = colon != std::string::npos && colon + 1 < text.size() && colon > 0;
  for (std::size_t i = colon + 1; ok && i < text.size(); ++i) {
    ok = text[i] >= '0' && text[i] <= '9' && (value = value * 10 + (text[i] - '0')) <= 65535;
  }
  if (!ok || value == 0) {
    throw Error(ErrorCode::Transport, "rank " + std::to_string(peer) + " published the address '" +
                                          printableText(text) +
                                          "', which is not HOST:PORT; is another job using "
                                          "the same rendezvous?");
  }
  host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  port = static_cast<std::uint16_t>(value);
}

wire::Hello helloOf(wire::HelloKind kind, int rank, int size, const std::string& token, int channel,
                    int channels, wire::HelloStatus status = wire::HelloStatus::Ok) {
  wire::Hello h;
  h.kind = kind;
  h.status = status;
  h.rank = static_cast<std::uint32_t>(rank);
  h.size = static_cast<std::uint32_t>(size);
  h.channel = static_cast<std::uint8_t>(channel);
  h.channels = static_cast<std::uint8_t>(channels);
  h.token = token;
  return h;
}

// Connects channel `channel` to `peer`, handshake included: a rank opens its channels to a peer
// one after another, so the peer sees them arrive in order.
net::Socket connectToPeer(int rank, int size, int peer, int channel, bootstrap::Store& store,
                          const TcpOptions& options, Clock::time_point deadline) {
  std::string address;
  try {
    address = store.get(
        addressKey(peer),
        std::max(std::chrono::milliseconds(1),
                 std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now())));
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Timeout) throw;
    throw Error(ErrorCode::Timeout, "rank " + std::to_string(rank) + ": rank " +
                                        std::to_string(peer) +
                                        " did not publish its data address within " +
                                        std::to_string(options.timeout.count()) +
                                        " ms; is it started, with the same rendezvous?");
  }
  std::string host;
  std::uint16_t port = 0;
  splitHostPort(address, host, port, peer);
  const std::string what =
      "rank " + std::to_string(rank) + " connecting to rank " + std::to_string(peer) + " at " +
      address + (options.channels > 1 ? " (channel " + std::to_string(channel) + ")" : "");
  net::Socket s = net::connectTo(host, port, deadline, what, true);
  std::uint8_t buffer[wire::kHelloBytes];
  wire::encodeHello(
      helloOf(wire::HelloKind::DataConnect, rank, size, options.token, channel, options.channels),
      buffer);
  bool ok = net::sendAll(s.fd(), buffer, sizeof buffer, deadline, what);
  try {
    ok = ok && net::recvAll(s.fd(), buffer, sizeof buffer, deadline, what);
  } catch (const Error&) {
    throw Error(ErrorCode::Transport, what + ": the connection was closed during the handshake");
  }
  if (!ok) {
    throw Error(ErrorCode::Timeout, what + ": no answer to the handshake within " +
                                        std::to_string(options.timeout.count()) + " ms");
  }
  wire::Hello answer;
  const char* bad = wire::parseHello(buffer, sizeof buffer, answer);
  if (!bad && answer.kind != wire::HelloKind::DataAccept) bad = "not a data-port answer";
  if (bad) throw Error(ErrorCode::Transport, what + ": " + bad);
  if (answer.status != wire::HelloStatus::Ok) {
    throw Error(ErrorCode::Transport,
                what + ": rank " + std::to_string(peer) +
                    " refused the connection; every rank must have the same "
                    "RINGLAB_TOKEN, number of ranks and RINGLAB_TCP_CHANNELS");
  }
  if (!wire::tokensEqual(answer.token, options.token) ||
      answer.rank != static_cast<std::uint32_t>(peer) ||
      answer.size != static_cast<std::uint32_t>(size)) {
    throw Error(ErrorCode::Transport, what + ": the listener there is not rank " +
                                          std::to_string(peer) +
                                          " of this job (wrong token, rank or size)");
  }
  return s;
}

struct Pending {
  net::Socket socket;
  std::string peer;
  std::uint8_t hello[wire::kHelloBytes];
  std::size_t got = 0;
};

// Accepts until every rank above `rank` has connected all its channels with the right token.
void acceptHigherRanks(int rank, int size, net::Socket& listener, const std::string& address,
                       const TcpOptions& options, Clock::time_point deadline,
                       std::vector<std::vector<net::Socket>>& sockets) {
  int missing = (size - 1 - rank) * options.channels;
  net::RefusedLog refused("rank " + std::to_string(rank) + " data port");
  std::vector<std::unique_ptr<Pending>> pending;
  std::vector<pollfd> fds;
  while (missing > 0) {
    fds.clear();
    fds.push_back({listener.fd(), POLLIN, 0});
    for (auto& p : pending) fds.push_back({p->socket.fd(), POLLIN, 0});
    const int rc = ::poll(fds.data(), fds.size(), net::millisecondsUntil(deadline));
    if (rc < 0 && errno != EINTR)
      throw Error(ErrorCode::Transport, "poll: " + net::errnoText(errno));
    if (rc == 0 && Clock::now() >= deadline) break;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (!fds[i + 1].revents) continue;
      Pending& p = *pending[i];
      const ssize_t n = ::recv(p.socket.fd(), p.hello + p.got, sizeof p.hello - p.got, 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
      if (n <= 0) {
        refused.refused(p.peer, "closed after " + std::to_string(p.got) +
                                    " bytes, before completing the handshake");
        p.socket.reset();
        continue;
      }
      p.got += static_cast<std::size_t>(n);
      if (p.got < sizeof p.hello) continue;
      wire::Hello hello;
      const char* why = wire::parseHello(p.hello, sizeof p.hello, hello);
      std::string reason = why ? why : "";
      if (!why && hello.kind != wire::HelloKind::DataConnect) reason = "not a data connection";
      if (reason.empty() && !wire::tokensEqual(hello.token, options.token)) reason = "wrong token";
      if (reason.empty() && hello.size != static_cast<std::uint32_t>(size)) {
        reason = "claims a job of " + std::to_string(hello.size) + " ranks; this one has " +
                 std::to_string(size);
      }
      if (reason.empty() && hello.channels != options.channels) {
        reason = "opens " + std::to_string(hello.channels) + " channels per peer; this rank uses " +
                 std::to_string(options.channels) +
                 " (RINGLAB_TCP_CHANNELS must be the same on every rank)";
      }
      if (reason.empty() && (hello.rank <= static_cast<std::uint32_t>(rank) ||
                             sockets[hello.rank][hello.channel].valid())) {
        reason = "claims rank " + std::to_string(hello.rank) + " channel " +
                 std::to_string(hello.channel) + ", which is not a connection from a rank above " +
                 std::to_string(rank) + " still to come";
      }
      std::uint8_t answer[wire::kHelloBytes];
      if (!reason.empty()) {
        refused.refused(p.peer, reason);
        // Tell a misconfigured rank why it failed; a stranger learns nothing from it.
        wire::encodeHello(
            helloOf(wire::HelloKind::DataAccept, rank, size, "", 0, 0, wire::HelloStatus::Refused),
            answer);
        [[maybe_unused]] ssize_t ignored =
            ::send(p.socket.fd(), answer, sizeof answer, MSG_NOSIGNAL);
        p.socket.reset();
        continue;
      }
      wire::encodeHello(helloOf(wire::HelloKind::DataAccept, rank, size, options.token,
                                hello.channel, options.channels),
                        answer);
      if (!net::sendAll(
              p.socket.fd(), answer, sizeof answer, deadline,
              "rank " + std::to_string(rank) + " answering rank " + std::to_string(hello.rank))) {
        continue;  // the deadline check below reports the missing rank
      }
      sockets[hello.rank][hello.channel] = std::move(p.socket);
      --missing;
    }
    std::erase_if(pending, [](const std::unique_ptr<Pending>& p) { return !p->socket.valid(); });
    if (fds[0].revents & POLLIN) {
      for (;;) {
        net::Socket s(::accept4(listener.fd(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
        if (!s.valid()) break;
        net::setNoDelay(s.fd());
        auto p = std::make_unique<Pending>();
        p->peer = net::peerAddress(s.fd());
        p->socket = std::move(s);
        pending.push_back(std::move(p));
      }
    }
  }
  for (auto& p : pending) refused.refused(p->peer, "no complete handshake before setup ended");
  if (missing > 0) {
    std::string names;
    for (int r = rank + 1; r < size; ++r) {
      const bool all = std::all_of(sockets[r].begin(), sockets[r].end(),
                                   [](const net::Socket& s) { return s.valid(); });
      if (!all) names += (names.empty() ? "" : ", ") + std::to_string(r);
    }
    throw Error(ErrorCode::Timeout,
                "rank " + std::to_string(rank) + ": rank(s) " + names +
                    " did not connect to its data port " + address + " within " +
                    std::to_string(options.timeout.count()) +
                    " ms; are they started, with the same rendezvous and token?");
  }
}

// Setup failed: every peer connected so far hears it, best effort and briefly.
void abortConnected(std::vector<std::vector<net::Socket>>& sockets, const Error& cause) {
  for (auto& channels : sockets) {
    for (net::Socket& s : channels) {
      if (!s.valid()) continue;
      try {
        sendAbortFrame(s.fd(), cause, Clock::now() + std::chrono::milliseconds(100));
      } catch (const Error&) {
        // that peer is gone: nothing to tell it
      }
    }
  }
}

}  // namespace

bool sendAbortFrame(int fd, const Error& cause, Clock::time_point deadline) {
  std::string text = cause.what();
  if (text.size() > kMaxAbortTextBytes) text.resize(kMaxAbortTextBytes);
  FrameHeader header;
  header.type = FrameType::Abort;
  header.code = static_cast<std::uint8_t>(cause.code());
  header.bytes = text.size();
  std::uint8_t frame[kFrameHeaderBytes];
  encodeFrameHeader(header, frame);
  if (net::sendAll(fd, frame, sizeof frame, deadline, "abort")) {
    net::sendAll(fd, text.data(), text.size(), deadline, "abort");
  }
  const std::uint8_t urgent = header.code;
  return ::send(fd, &urgent, 1, MSG_OOB | MSG_NOSIGNAL | MSG_DONTWAIT) == 1;
}

std::vector<std::vector<net::Socket>> connectMesh(int rank, int size, bootstrap::Store& store,
                                                  const TcpOptions& options) {
  const auto deadline = Clock::now() + options.timeout;
  std::vector<std::vector<net::Socket>> sockets(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    if (r != rank) sockets[r].resize(static_cast<std::size_t>(options.channels));
  }
  if (size == 1) return sockets;
  const std::string what = "rank " + std::to_string(rank) + " data port";
  net::Socket listener = net::listenOn(options.bindHost, 0, what);
  const std::string address =
      joinHostPort(publishedHost(options.bindHost), net::localPort(listener));
  store.set(addressKey(rank), address);
  // Lower ranks first, then higher: rank r waits on an answer only from a rank below it, which
  // is accepting by then, so the setup cannot wait in a circle.
  try {
    for (int peer = 0; peer < rank; ++peer) {
      for (int c = 0; c < options.channels; ++c) {
        sockets[peer][c] = connectToPeer(rank, size, peer, c, store, options, deadline);
      }
    }
    injectSetupFault(rank);  // test-only: RINGLAB_FAULT=stop|kill,...,at=setup
    acceptHigherRanks(rank, size, listener, address, options, deadline, sockets);
  } catch (const Error& e) {
    abortConnected(sockets, e);
    throw;
  }
  // The listener closes here: once every peer is connected, the data port refuses everything.
  return sockets;
}

}  // namespace ringlab::transport::tcp
