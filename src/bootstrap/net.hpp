#pragma once
// Small socket helpers shared by the TCP store (bootstrap/) and the TCP transport (transport/tcp):
// an owning descriptor, listening on one named interface, connecting with a deadline, and
// blocking-with-deadline reads and writes for handshakes. Errors are ringlab::Error with the
// address and the system's reason in the message.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace ringlab::bootstrap::net {

using Clock = std::chrono::steady_clock;

class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() { reset(); }
  Socket(Socket&& other) noexcept : fd_(other.release()) {}
  Socket& operator=(Socket&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = other.release();
    }
    return *this;
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  int fd() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset();

 private:
  int fd_ = -1;
};

// "Connection refused" and the like.
std::string errnoText(int error);

// Listens on `host`:`port` (port 0: an ephemeral one) on that interface only. Throws
// InvalidArgument when the host does not resolve, Transport when the port is in use or the
// address is not one of this machine's. `what` names the listener in messages.
Socket listenOn(const std::string& host, std::uint16_t port, const std::string& what);
std::uint16_t localPort(const Socket& socket);
// "127.0.0.1:45678" for the far end of a connected socket.
std::string peerAddress(int fd);

// Connects to host:port, retrying refused connections until `deadline` (the far side may not be
// listening yet). Throws InvalidArgument when the host does not resolve and Transport naming the
// address and the last error when no connection is made by the deadline. The socket returned is
// non-blocking with TCP_NODELAY set. With `listening` (the far side is known to have listened
// already, as a rank that published its address has), a refusal means it is gone: no retry.
Socket connectTo(const std::string& host, std::uint16_t port, Clock::time_point deadline,
                 const std::string& what, bool listening = false);

void setNonBlocking(int fd);
void setNoDelay(int fd);

// Non-blocking descriptors, waiting with poll until the deadline. Return false on timeout;
// throw Transport naming `what` on a closed connection or a socket error.
bool sendAll(int fd, const void* data, std::size_t bytes, Clock::time_point deadline,
             const std::string& what);
bool recvAll(int fd, void* data, std::size_t bytes, Clock::time_point deadline,
             const std::string& what);

// The log of one listener's refused connections: one line on stderr each, "ringlab: WHERE:
// refused connection from PEER: WHY", at most kRefusedBurst lines per kRefusedWindow. The others
// are counted, and the count is printed with the next line logged or when the log is destroyed
// (the listener closes), so that a flood of bad connections cannot flood the log.
inline constexpr int kRefusedBurst = 5;
inline constexpr std::chrono::seconds kRefusedWindow{10};
class RefusedLog {
 public:
  explicit RefusedLog(std::string where) : where_(std::move(where)) {}
  ~RefusedLog();
  RefusedLog(const RefusedLog&) = delete;
  RefusedLog& operator=(const RefusedLog&) = delete;
  void refused(const std::string& peer, const std::string& why);

 private:
  std::string where_;
  Clock::time_point windowStart_;
  int linesInWindow_ = 0;
  long suppressed_ = 0;  // refusals not logged since the last line
};

// Milliseconds left until `deadline`, at least 0, for poll().
int millisecondsUntil(Clock::time_point deadline);

}  // namespace ringlab::bootstrap::net
