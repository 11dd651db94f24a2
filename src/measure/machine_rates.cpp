#include "ringlab/measure/machine_rates.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ringlab/core/error.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/core/streaming_stores.hpp"

namespace ringlab::measure {

namespace {

using Clock = std::chrono::steady_clock;

// The best time of `work(rep)`, timed from repetition `untimed` on, for at least 5 ms and 3 times.
template <typename Work>
double bestSeconds(int untimed, const Work& work) {
  constexpr auto kAtLeast = std::chrono::milliseconds(5);
  for (int rep = 0; rep < untimed; ++rep) work(rep);
  double best = 1e300;
  const Clock::time_point start = Clock::now();
  for (int rep = untimed; rep < untimed + 3 || Clock::now() - start < kAtLeast; ++rep) {
    const Clock::time_point t0 = Clock::now();
    work(rep);
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return std::max(best, 1e-9);
}

// `count` blocks of `bytes` in an arena, visited so that a block comes back only after about the
// whole arena has gone through the caches: repetition r reads block r and writes block r + n/2
// (mod n), so every block is touched each n/2 repetitions, two blocks a repetition.
struct RotatingBlocks {
  std::byte* arena;
  std::uint64_t bytes;
  std::uint64_t count;
  std::byte* source(int rep) const { return arena + (rep % count) * bytes; }
  std::byte* destination(int rep) const { return arena + ((rep + count / 2) % count) * bytes; }
};

// `bytes` of a buffer in slot-sized pieces, each paired with the next slot of `slots`' ring, as
// `pass(offset, slot, pieceBytes)`.
template <typename Pass>
void throughSlots(std::uint64_t bytes, std::byte* ring, const model::SlotRing& slots,
                  const Pass& pass) {
  std::uint64_t next = 0;
  for (std::uint64_t offset = 0; offset < bytes; offset += slots.slotBytes) {
    pass(offset, ring + (next++ % slots.slots) * slots.slotBytes,
         std::min<std::uint64_t>(slots.slotBytes, bytes - offset));
  }
}

}  // namespace

record::PassSize workingSetPass(std::uint64_t workingSetBytes) {
  return {std::clamp<std::uint64_t>(workingSetBytes / 8, 4096, 1 << 20), workingSetBytes};
}

std::vector<SizeRates> measureSizeRates(const std::vector<record::PassSize>& passes, DataType type,
                                        const model::SlotRing& slots) {
  const std::uint64_t element = dataTypeSize(type);
  const auto blocksOf = [&](const record::PassSize& pass) {
    const std::uint64_t count =
        std::max<std::uint64_t>(1, std::min(pass.bytes, kRateMaxBytes) / element);
    const std::uint64_t bytes = count * element;
    const std::uint64_t workingSet = std::min(pass.workingSetBytes, kRateMaxWorkingSetBytes);
    return std::pair(bytes, std::max<std::uint64_t>(2, workingSet / bytes));
  };
  std::uint64_t largest = 0;
  for (const record::PassSize& pass : passes) {
    const auto [bytes, blocks] = blocksOf(pass);
    largest = std::max(largest, bytes * blocks);
  }
  // 0x3f in every byte: a normal number in every floating type (no denormal slow path).
  std::vector<std::byte> arena(largest, std::byte{0x3f});
  std::vector<std::byte> ring(slots.slotBytes * slots.slots, std::byte{0x3f});
  std::vector<SizeRates> rates;
  for (const record::PassSize& pass : passes) {
    const auto [bytes, blocks] = blocksOf(pass);
    const RotatingBlocks at{arena.data(), bytes, blocks};
    const std::uint64_t count = bytes / element;
    // A turn of the arena first: every block then has the history the job's data would give it.
    const int turn = static_cast<int>(blocks);
    // The faster of plain and streaming stores, as the transports choose by size: where the data
    // is past the caches, streaming saves a copy's read of its destination. (A reduce in place
    // reads its destination anyway: streaming has nothing to save there.)
    const double copy = std::min(
        bestSeconds(turn, [&](int rep) { copyBytes(at.destination(rep), at.source(rep), bytes); }),
        bestSeconds(turn, [&](int rep) {
          copyBytesStreaming(at.destination(rep), at.source(rep), bytes);
        }));
    const double sum = bestSeconds(turn, [&](int rep) {
      reduce({type, ReduceOp::Sum}, at.destination(rep), at.destination(rep), at.source(rep),
             count);
    });
    // Slot sizes are whole elements of every datatype, so no piece splits one.
    const double slotIn = bestSeconds(turn, [&](int rep) {
      throughSlots(bytes, ring.data(), slots,
                   [&](std::uint64_t off, std::byte* slot, std::uint64_t n) {
                     copyBytes(slot, at.source(rep) + off, n);
                   });
    });
    const double slotOut = bestSeconds(turn, [&](int rep) {
      throughSlots(bytes, ring.data(), slots,
                   [&](std::uint64_t off, std::byte* slot, std::uint64_t n) {
                     copyBytes(at.source(rep) + off, slot, n);
                   });
    });
    const double slotSum = bestSeconds(turn, [&](int rep) {
      throughSlots(bytes, ring.data(), slots,
                   [&](std::uint64_t off, std::byte* slot, std::uint64_t n) {
                     std::byte* block = at.source(rep) + off;
                     reduce({type, ReduceOp::Sum}, block, block, slot, n / element);
                   });
    });
    rates.push_back(
        {pass, bytes / copy, bytes / sum, bytes / slotIn, bytes / slotOut, bytes / slotSum});
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

// Moves `bytes` over each connected pair (from, to) at once, a sender and a receiver thread per
// pair; returns the seconds until every pair is done. Throws when a receiver gets less.
double transferSeconds(const std::vector<std::pair<int, int>>& pairs, std::size_t bytes,
                       const std::vector<std::byte>& out, std::vector<std::vector<std::byte>>& in) {
  const std::size_t chunk = out.size();
  std::vector<std::size_t> got(pairs.size(), 0);
  const Clock::time_point t0 = Clock::now();
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      threads.emplace_back([&, from = pairs[i].first] {
        for (std::size_t sent = 0; sent < bytes;) {
          const ssize_t n = ::send(from, out.data(), std::min(chunk, bytes - sent), MSG_NOSIGNAL);
          if (n <= 0) {
            ::shutdown(from, SHUT_WR);  // the receiver sees the end, and the shortfall
            return;
          }
          sent += static_cast<std::size_t>(n);
        }
      });
      threads.emplace_back([&, i, to = pairs[i].second] {
        while (got[i] < bytes) {
          const ssize_t n = ::recv(to, in[i].data(), chunk, 0);
          if (n <= 0) break;
          got[i] += static_cast<std::size_t>(n);
        }
      });
    }
  }  // joined
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (std::size_t g : got) {
    if (g < bytes)
      throw Error(ErrorCode::Transport, "loopback rate: received " + std::to_string(g) + " of " +
                                            std::to_string(bytes) + " bytes");
  }
  return seconds;
}

}  // namespace

namespace {

// A listening socket on 127.0.0.1 (an ephemeral port) and the connections made to it.
class Loopback {
 public:
  Loopback() : listener_(::socket(AF_INET, SOCK_STREAM, 0)) {
    addr_.sin_family = AF_INET;
    addr_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr_;
    check(::bind(listener_.fd, reinterpret_cast<sockaddr*>(&addr_), sizeof addr_), "bind");
    check(::listen(listener_.fd, 1), "listen");  // each connection accepted as it is made
    check(::getsockname(listener_.fd, reinterpret_cast<sockaddr*>(&addr_), &len), "getsockname");
  }

  // A new connection: (the connecting end, the accepted end), kept open as long as this.
  std::pair<int, int> connect() {
    const int a = ends_.emplace_back(std::make_unique<Fd>(::socket(AF_INET, SOCK_STREAM, 0)))->fd;
    check(::connect(a, reinterpret_cast<sockaddr*>(&addr_), sizeof addr_), "connect");
    const int b =
        ends_.emplace_back(std::make_unique<Fd>(::accept(listener_.fd, nullptr, nullptr)))->fd;
    return {a, b};
  }

 private:
  Fd listener_;
  sockaddr_in addr_{};
  std::vector<std::unique_ptr<Fd>> ends_;
};

}  // namespace

LoopbackRates measureLoopbackRates(int ringConnections) {
  constexpr std::size_t kTransfer = 64u << 20, kRingTransfer = 128u << 20, kChunk = 1u << 20;
  const int ring = ringConnections >= 3 ? ringConnections : 0;
  Loopback loopback;
  const auto [a, b] = loopback.connect();
  const std::vector<std::pair<int, int>> oneWay{{a, b}}, twoWay{{a, b}, {b, a}};
  // Connection i carries rank i's sends to rank i + 1 (its connecting end) and rank i + 1's
  // receives; every rank sends and receives at once, as in a ring's step.
  std::vector<std::pair<int, int>> ringPairs;
  for (int i = 0; i < ring; ++i) ringPairs.push_back(loopback.connect());
  const std::size_t ringBytes =
      ring ? std::max<std::size_t>(kChunk, kRingTransfer / static_cast<std::size_t>(ring)) : 0;
  const std::vector<std::byte> out(kChunk, std::byte{1});
  std::vector<std::vector<std::byte>> in(std::max<std::size_t>(2, ringPairs.size()),
                                         std::vector<std::byte>(kChunk));
  double bestOne = 1e300, bestTwo = 1e300, bestRing = 1e300;
  for (int rep = 0; rep < 6; ++rep) {  // the first warms the connections' buffers
    const double one = transferSeconds(oneWay, kTransfer, out, in);
    const double two = transferSeconds(twoWay, kTransfer, out, in);
    const double inRing = ring ? transferSeconds(ringPairs, ringBytes, out, in) : 0;
    if (rep == 0) continue;
    bestOne = std::min(bestOne, one);
    bestTwo = std::min(bestTwo, two);
    bestRing = std::min(bestRing, inRing);
  }
  return {.oneWayBytesPerSecond = kTransfer / bestOne,
          .twoWayBytesPerSecond = kTransfer / bestTwo,
          .ringBytesPerSecond = ring ? static_cast<double>(ringBytes) / bestRing : 0,
          .ringConnections = ring};
}

}  // namespace ringlab::measure
