#include "transport/tcp/mesh.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>

#include "bootstrap/handshake.hpp"
#include "bootstrap/wire.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/transport/fault_injection.hpp"
#include "transport/tcp/frame.hpp"

namespace ringlab::transport::tcp {
namespace {

namespace net = bootstrap::net;
namespace handshake = bootstrap::handshake;
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

wire::Hello helloOf(int rank, int size, int channel, int channels) {
  wire::Hello h;
  h.rank = static_cast<std::uint32_t>(rank);
  h.size = static_cast<std::uint32_t>(size);
  h.channel = static_cast<std::uint8_t>(channel);
  h.channels = static_cast<std::uint8_t>(channels);
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
  wire::Hello hello = helloOf(rank, size, channel, options.channels);
  hello.kind = wire::HelloKind::DataConnect;
  handshake::Greeted greeted =
      handshake::connectAndGreet(host, port, hello, options.token, deadline, what, true);
  const wire::Hello& answer = greeted.answer;
  if (answer.status != wire::HelloStatus::Ok) {
    throw Error(ErrorCode::Transport,
                what + ": rank " + std::to_string(peer) +
                    " refused the connection; every rank must have the same "
                    "RINGLAB_TOKEN, number of ranks and RINGLAB_TCP_CHANNELS");
  }
  if (answer.rank != static_cast<std::uint32_t>(peer) ||
      answer.size != static_cast<std::uint32_t>(size)) {
    throw Error(ErrorCode::Transport,
                what + ": the listener there is rank " + std::to_string(answer.rank) + " of " +
                    std::to_string(answer.size) + ", not rank " + std::to_string(peer) +
                    " of this job's " + std::to_string(size));
  }
  return std::move(greeted.socket);
}

// Why a connection that proved the token is still not one this rank waits for; "" when it is.
std::string unwanted(const wire::Hello& hello, int rank, int size, const TcpOptions& options,
                     const std::vector<std::vector<net::Socket>>& sockets) {
  if (hello.size != static_cast<std::uint32_t>(size)) {
    return "claims a job of " + std::to_string(hello.size) + " ranks; this one has " +
           std::to_string(size);
  }
  if (hello.channels != options.channels) {
    return "opens " + std::to_string(hello.channels) + " channels per peer; this rank uses " +
           std::to_string(options.channels) +
           " (RINGLAB_TCP_CHANNELS must be the same on every rank)";
  }
  if (hello.rank <= static_cast<std::uint32_t>(rank) ||
      sockets[hello.rank][hello.channel].valid()) {
    return "claims rank " + std::to_string(hello.rank) + " channel " +
           std::to_string(hello.channel) + ", which is not a connection from a rank above " +
           std::to_string(rank) + " still to come";
  }
  return "";
}

// Accepts until every rank above `rank` has connected all its channels with the token, or the
// deadline passes, whatever poll keeps returning (a flood of strangers keeps it busy).
void acceptHigherRanks(int rank, int size, net::Socket& listener, const std::string& address,
                       const TcpOptions& options, Clock::time_point deadline,
                       std::vector<std::vector<net::Socket>>& sockets) {
  int missing = (size - 1 - rank) * options.channels;
  handshake::Doorman doorman(listener, options.token, wire::HelloKind::DataConnect,
                             "rank " + std::to_string(rank) + " data port");
  std::vector<pollfd> fds;
  while (missing > 0 && Clock::now() < deadline) {
    fds.clear();
    doorman.watch(fds);
    const int rc = ::poll(fds.data(), fds.size(),
                          net::millisecondsUntil(std::min(deadline, doorman.nextDeadline())));
    if (rc < 0 && errno != EINTR)
      throw Error(ErrorCode::Transport, "poll: " + net::errnoText(errno));
    for (handshake::Arrival& arrival : doorman.serve(fds)) {
      const std::string why = unwanted(arrival.hello, rank, size, options, sockets);
      if (!why.empty()) {
        doorman.refuse(arrival, why);
        continue;
      }
      if (!doorman.answer(arrival, helloOf(rank, size, arrival.hello.channel, options.channels)))
        continue;  // the peer went away; it tries again, or the deadline reports it missing
      sockets[arrival.hello.rank][arrival.hello.channel] = std::move(arrival.socket);
      --missing;
    }
  }
  if (missing > 0) {
    std::string names;
    for (int r = rank + 1; r < size; ++r) {
      const bool all = std::all_of(sockets[r].begin(), sockets[r].end(),
                                   [](const net::Socket& s) { return s.valid(); });
      if (!all) names += (names.empty() ? "" : ", ") + std::to_string(r);
    }
    const std::string flood = doorman.floodNote();
    throw Error(ErrorCode::Timeout, "rank " + std::to_string(rank) + ": rank(s) " + names +
                                        " did not connect to its data port " + address +
                                        " within " + std::to_string(options.timeout.count()) +
                                        " ms" + (flood.empty() ? "" : " while " + flood) +
                                        "; are they started, with the same rendezvous and token?");
  }
}

// Setup failed: every peer connected so far hears it, best effort and briefly.
void abortConnected(std::vector<std::vector<net::Socket>>& sockets, const Error& cause) {
  for (auto& channels : sockets) {
    for (net::Socket& s : channels) {
      if (!s.valid()) continue;
      try {
        sendAbortFrame(s.fd(), cause, WaitPoint{}, Clock::now() + std::chrono::milliseconds(100));
      } catch (const Error&) {
        // that peer is gone: nothing to tell it
      }
    }
  }
}

}  // namespace

bool sendAbortFrame(int fd, const Error& cause, const WaitPoint& at, Clock::time_point deadline) {
  std::string text = cause.what();
  if (text.size() > kMaxAbortTextBytes) text.resize(kMaxAbortTextBytes);
  FrameHeader header;
  header.type = FrameType::Abort;
  header.code = static_cast<std::uint8_t>(cause.code());
  header.bytes = kAbortPointBytes + text.size();
  std::uint8_t frame[kFrameHeaderBytes + kAbortPointBytes];
  encodeFrameHeader(header, frame);
  encodeAbortPoint(at, frame + kFrameHeaderBytes);
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
