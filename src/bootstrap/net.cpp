#include "bootstrap/net.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

#include "ringlab/core/error.hpp"

namespace ringlab::bootstrap::net {
namespace {

struct AddrInfoDeleter {
  void operator()(addrinfo* info) const { freeaddrinfo(info); }
};
using AddrInfo = std::unique_ptr<addrinfo, AddrInfoDeleter>;

AddrInfo resolve(const std::string& host, std::uint16_t port, bool passive,
                 const std::string& what) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* result = nullptr;
  const std::string service = std::to_string(port);
  const int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &result);
  if (rc != 0) {
    throwInvalid(what + ": host '" + host + "' does not resolve (" + gai_strerror(rc) +
                 "); give an IP address or a host name this machine can resolve");
  }
  return AddrInfo(result);
}

std::string hostPort(const std::string& host, std::uint16_t port) {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(port);
}

}  // namespace

void Socket::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string errnoText(int error) {
  char buffer[128];
  // GNU strerror_r returns the message (possibly not in buffer).
  return strerror_r(error, buffer, sizeof buffer);
}

int millisecondsUntil(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

void setNonBlocking(int fd) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    throw Error(ErrorCode::Transport,
                std::string("cannot make a socket non-blocking: ") + errnoText(errno));
  }
}

void setNoDelay(int fd) {
  // Small messages (the latency end of every collective) must leave at once, not wait for
  // Nagle's algorithm to coalesce them with data that will not come until they are answered.
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

Socket listenOn(const std::string& host, std::uint16_t port, const std::string& what) {
  AddrInfo info = resolve(host, port, true, what);
  int lastError = 0;
  for (addrinfo* ai = info.get(); ai; ai = ai->ai_next) {
    Socket s(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!s.valid()) {
      lastError = errno;
      continue;
    }
    // Lets a restarted job reuse a port whose old connections linger in TIME_WAIT; a port that
    // another socket is listening on is still refused (EADDRINUSE).
    const int one = 1;
    setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(s.fd(), ai->ai_addr, ai->ai_addrlen) != 0) {
      lastError = errno;
      continue;
    }
    if (::listen(s.fd(), 128) != 0) {
      lastError = errno;
      continue;
    }
    setNonBlocking(s.fd());
    return s;
  }
  if (lastError == EADDRINUSE) {
    throw Error(ErrorCode::Transport, what + ": port " + std::to_string(port) + " on " + host +
                                          " is already in use; choose another port or stop the "
                                          "process that holds it");
  }
  if (lastError == EADDRNOTAVAIL) {
    throw Error(ErrorCode::Transport, what + ": cannot listen on " + hostPort(host, port) +
                                          ": that address is not one of this machine's interfaces");
  }
  throw Error(ErrorCode::Transport,
              what + ": cannot listen on " + hostPort(host, port) + ": " + errnoText(lastError));
}

std::uint16_t localPort(const Socket& socket) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (getsockname(socket.fd(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw Error(ErrorCode::Transport, std::string("getsockname: ") + errnoText(errno));
  }
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

namespace {

std::string notLogged(long count) {
  return std::to_string(count) + " more refused connection(s) not logged";
}

}  // namespace

void RefusedLog::refused(const std::string& peer, const std::string& why) {
  const Clock::time_point now = Clock::now();
  if (linesInWindow_ == 0 || now - windowStart_ >= kRefusedWindow) {
    windowStart_ = now;
    linesInWindow_ = 0;
  }
  if (linesInWindow_ >= kRefusedBurst) {
    ++suppressed_;
    return;
  }
  ++linesInWindow_;
  std::string line = "ringlab: " + where_ + ": refused connection from " + peer + ": " + why;
  if (suppressed_ > 0) line += " (" + notLogged(suppressed_) + " before this one)";
  suppressed_ = 0;
  // One line, written with one call, so lines from several threads do not interleave.
  std::fputs((line + "\n").c_str(), stderr);
}

RefusedLog::~RefusedLog() {
  if (suppressed_ > 0)
    std::fputs(("ringlab: " + where_ + ": " + notLogged(suppressed_) + "\n").c_str(), stderr);
}

std::string peerAddress(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "unknown address";
  char host[INET6_ADDRSTRLEN] = "?";
  std::uint16_t port = 0;
  if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    port = ntohs(a->sin6_port);
  } else {
    const auto* a = reinterpret_cast<sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    port = ntohs(a->sin_port);
  }
  return hostPort(host, port);
}

Socket connectTo(const std::string& host, std::uint16_t port, Clock::time_point deadline,
                 const std::string& what, bool listening) {
  AddrInfo info = resolve(host, port, false, what);
  int lastError = ETIMEDOUT;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    for (addrinfo* ai = info.get(); ai; ai = ai->ai_next) {
      Socket s(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
      if (!s.valid()) {
        lastError = errno;
        continue;
      }
      setNonBlocking(s.fd());
      setNoDelay(s.fd());
      if (::connect(s.fd(), ai->ai_addr, ai->ai_addrlen) == 0) return s;
      if (errno != EINPROGRESS) {
        lastError = errno;
        continue;
      }
      pollfd p{s.fd(), POLLOUT, 0};
      const int rc = ::poll(&p, 1, millisecondsUntil(deadline));
      if (rc <= 0) {
        lastError = rc == 0 ? ETIMEDOUT : errno;
        continue;
      }
      int error = 0;
      socklen_t len = sizeof error;
      getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &error, &len);
      if (error == 0) return s;
      lastError = error;
    }
    if (listening && lastError == ECONNREFUSED) {
      throw Error(ErrorCode::PeerLost, what + ": " + hostPort(host, port) +
                                           " refused the connection after it had listened "
                                           "there; the process exited or crashed");
    }
    if (Clock::now() + pause >= deadline) break;
    // The far side may simply not be listening yet: retry, backing off to 50 ms.
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  throw Error(ErrorCode::Transport, what + ": cannot connect to " + hostPort(host, port) + ": " +
                                        errnoText(lastError) +
                                        " (kept trying until the timeout); is it running, and is "
                                        "the address right and reachable from here?");
}

bool sendAll(int fd, const void* data, std::size_t bytes, Clock::time_point deadline,
             const std::string& what) {
  const auto* p = static_cast<const char*>(data);
  while (bytes) {
    const ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL);
    if (n > 0) {
      p += n;
      bytes -= static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      throw Error(ErrorCode::Transport, what + ": send failed: " + errnoText(errno));
    }
    pollfd pfd{fd, POLLOUT, 0};
    const int rc = ::poll(&pfd, 1, millisecondsUntil(deadline));
    if (rc == 0) return false;
  }
  return true;
}

bool recvAll(int fd, void* data, std::size_t bytes, Clock::time_point deadline,
             const std::string& what) {
  auto* p = static_cast<char*>(data);
  while (bytes) {
    const ssize_t n = ::recv(fd, p, bytes, 0);
    if (n > 0) {
      p += n;
      bytes -= static_cast<std::size_t>(n);
      continue;
    }
    if (n == 0)
      throw Error(ErrorCode::Transport, what + ": the connection was closed by the other side");
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      throw Error(ErrorCode::Transport, what + ": receive failed: " + errnoText(errno));
    }
    pollfd pfd{fd, POLLIN, 0};
    const int rc = ::poll(&pfd, 1, millisecondsUntil(deadline));
    if (rc == 0) return false;
  }
  return true;
}

}  // namespace ringlab::bootstrap::net
