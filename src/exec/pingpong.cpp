#include "ringlab/exec/pingpong.hpp"

namespace ringlab::exec {

std::vector<double> pingPong(transport::Transport& t, int peer, bool initiator, void* buffer,
                             std::uint64_t bytes, int warmup, int iterations,
                             std::chrono::milliseconds timeout) {
  std::vector<double> oneWay;
  oneWay.reserve(iterations);
  constexpr std::uint32_t kTag = 0xC0FFEE;
  for (int i = 0; i < warmup + iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (initiator) {
      t.wait(t.isend(peer, buffer, bytes, kTag), timeout);
      t.wait(t.irecv(peer, buffer, bytes, kTag), timeout);
    } else {
      t.wait(t.irecv(peer, buffer, bytes, kTag), timeout);
      t.wait(t.isend(peer, buffer, bytes, kTag), timeout);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (initiator && i >= warmup) oneWay.push_back(seconds / 2);
  }
  return oneWay;
}

}  // namespace ringlab::exec
