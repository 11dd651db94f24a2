#include "ringlab/measure/machine_rates.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "ringlab/core/error.hpp"
#include "ringlab/core/reduce.hpp"
#include "transport/shm/shm_layout.hpp"

namespace ringlab::measure {

namespace {

using Clock = std::chrono::steady_clock;

// The best time of `work`, repeated for at least 5 ms and 3 times (the first warms the caches).
template <typename Work>
double bestSeconds(const Work& work) {
  constexpr auto kAtLeast = std::chrono::milliseconds(5);
  double best = 1e300;
  const Clock::time_point start = Clock::now();
  for (int rep = 0; rep < 3 || Clock::now() - start < kAtLeast; ++rep) {
    const Clock::time_point t0 = Clock::now();
    work();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return std::max(best, 1e-9);
}

// `bytes` of a buffer in slot-sized pieces, each paired with the next slot of a ring laid out as
// shm's (transport/shm/shm_layout.hpp), as `pass(offset, slot, pieceBytes)`.
template <typename Pass>
void throughSlots(std::uint64_t bytes, std::byte* ring, const Pass& pass) {
  using transport::shm::kSlotBytes, transport::shm::kSlotsPerChannel;
  std::uint64_t next = 0;
  for (std::uint64_t offset = 0; offset < bytes; offset += kSlotBytes) {
    pass(offset, ring + (next++ % kSlotsPerChannel) * kSlotBytes,
         std::min<std::uint64_t>(kSlotBytes, bytes - offset));
  }
}

}  // namespace

std::vector<SizeRates> measureSizeRates(const std::vector<std::uint64_t>& sizes, DataType type) {
  const std::uint64_t element = dataTypeSize(type);
  std::uint64_t largest = element;
  for (std::uint64_t s : sizes) largest = std::max(largest, std::min(s, kRateMaxBytes));
  // 0x3f in every byte: a normal number in every floating type (no denormal slow path).
  std::vector<std::byte> a(largest, std::byte{0x3f}), b(largest, std::byte{0x3f});
  std::vector<std::byte> ring(transport::shm::kSlotBytes * transport::shm::kSlotsPerChannel,
                              std::byte{0x3f});
  std::vector<SizeRates> rates;
  for (std::uint64_t size : sizes) {
    const std::uint64_t count = std::max<std::uint64_t>(1, std::min(size, kRateMaxBytes) / element);
    const std::uint64_t bytes = count * element;
    const double copy = bestSeconds([&] { copyBytes(a.data(), b.data(), bytes); });
    const double sum =
        bestSeconds([&] { reduce(type, ReduceOp::Sum, a.data(), a.data(), b.data(), count); });
    // Slot sizes are whole elements of every datatype, so no piece splits one.
    const double slotIn = bestSeconds([&] {
      throughSlots(bytes, ring.data(), [&](std::uint64_t at, std::byte* slot, std::uint64_t n) {
        copyBytes(slot, a.data() + at, n);
      });
    });
    const double slotOut = bestSeconds([&] {
      throughSlots(bytes, ring.data(), [&](std::uint64_t at, std::byte* slot, std::uint64_t n) {
        copyBytes(b.data() + at, slot, n);
      });
    });
    const double slotSum = bestSeconds([&] {
      throughSlots(bytes, ring.data(), [&](std::uint64_t at, std::byte* slot, std::uint64_t n) {
        reduce(type, ReduceOp::Sum, b.data() + at, b.data() + at, slot, n / element);
      });
    });
    rates.push_back(
        {size, bytes / copy, bytes / sum, bytes / slotIn, bytes / slotOut, bytes / slotSum});
  }
  return rates;
}

namespace {

// A file descriptor closed on every path.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {
    if (fd < 0) throw Error(ErrorCode::Transport, "loopback rate: " + std::string(strerror(errno)));
  }
  ~Fd() { ::close(fd); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

void check(int rc, const char* what) {
  if (rc < 0)
    throw Error(ErrorCode::Transport,
                std::string("loopback rate: ") + what + ": " + std::string(strerror(errno)));
}

}  // namespace

double measureLoopbackRate() {
  constexpr std::size_t kTransfer = 64u << 20, kChunk = 1u << 20;
  Fd listener(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  check(::bind(listener.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), "bind");
  check(::listen(listener.fd, 1), "listen");
  check(::getsockname(listener.fd, reinterpret_cast<sockaddr*>(&addr), &len), "getsockname");
  Fd sender(::socket(AF_INET, SOCK_STREAM, 0));
  check(::connect(sender.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), "connect");
  Fd receiver(::accept(listener.fd, nullptr, nullptr));
  std::vector<std::byte> out(kChunk, std::byte{1}), in(kChunk);
  double best = 1e300;
  for (int rep = 0; rep < 4; ++rep) {  // the first warms the connection's buffers
    const Clock::time_point t0 = Clock::now();
    std::thread send([&] {
      for (std::size_t sent = 0; sent < kTransfer;) {
        const ssize_t n =
            ::send(sender.fd, out.data(), std::min(kChunk, kTransfer - sent), MSG_NOSIGNAL);
        if (n <= 0) {
          ::shutdown(sender.fd, SHUT_WR);  // the receiver sees the end, and the shortfall
          return;
        }
        sent += static_cast<std::size_t>(n);
      }
    });
    std::size_t got = 0;
    while (got < kTransfer) {
      const ssize_t n = ::recv(receiver.fd, in.data(), kChunk, 0);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    send.join();
    if (got < kTransfer) check(-1, "recv");
    if (rep > 0) best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return kTransfer / best;
}

}  // namespace ringlab::measure
