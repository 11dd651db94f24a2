#pragma once
// Tools for flood tests: a child process that opens many idle connections to a port and holds
// them, and a lowered limit on this process's file descriptors (so that a few hundred connections
// exhaust it, as 1100 exhaust the default of 1024). Header-only; tcp_test.cpp and
// bootstrap_test.cpp use it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

namespace ringlab::test {

// Connections from someone without the token: `connections` sockets connect to 127.0.0.1:`port`
// and say nothing for `hold`, then the child exits (its connections close). A separate process,
// so that its descriptors do not count against the limit of the process under test.
class StrangerFlood {
 public:
  StrangerFlood(std::uint16_t port, int connections, std::chrono::seconds hold) {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const timespec holdFor{static_cast<std::time_t>(hold.count()), 0};
    pid_ = ::fork();
    if (pid_ != 0) return;
    // The child of a threaded process: system calls only, no allocation.
    ::close_range(3, ~0U, 0);  // not the listeners and connections of the process under test
    rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
    for (int i = 0; i < connections; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
      if (fd < 0) break;
      // Non-blocking: past the listener's queue the kernel retries the connection by itself.
      ::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to);
    }
    ::nanosleep(&holdFor, nullptr);
    ::_exit(0);
  }
  ~StrangerFlood() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  StrangerFlood(const StrangerFlood&) = delete;
  StrangerFlood& operator=(const StrangerFlood&) = delete;

 private:
  pid_t pid_ = -1;
};

// Leaves this process exactly `headroom` free descriptors for the object's life: fills the free
// numbers below the highest one open (the limit bounds a descriptor's number, not how many are
// open) and lowers the soft limit to just above it.
class DescriptorLimit {
 public:
  explicit DescriptorLimit(int headroom) {
    ::getrlimit(RLIMIT_NOFILE, &saved_);
    int highest = 2;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd"))
      highest = std::max(highest, std::atoi(entry.path().filename().c_str()));
    for (int fd = ::dup(0); fd >= 0; fd = ::dup(0)) {
      if (fd > highest) {
        ::close(fd);
        break;
      }
      fillers_.push_back(fd);
    }
    rlimit lowered = saved_;
    lowered.rlim_cur = static_cast<rlim_t>(highest + 1 + headroom);
    ::setrlimit(RLIMIT_NOFILE, &lowered);
  }
  ~DescriptorLimit() {
    ::setrlimit(RLIMIT_NOFILE, &saved_);
    for (int fd : fillers_) ::close(fd);
  }
  DescriptorLimit(const DescriptorLimit&) = delete;
  DescriptorLimit& operator=(const DescriptorLimit&) = delete;

 private:
  rlimit saved_{};
  std::vector<int> fillers_;
};

}  // namespace ringlab::test
