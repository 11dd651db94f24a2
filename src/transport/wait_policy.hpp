#pragma once
// How a rank waits for a peer on this host (inproc, shm), before it sleeps on a futex: spin while
// every rank can have a core (the peer usually answers within microseconds), then hand the core
// over with sched_yield for a while, which is how a rank whose peer shares its core gets the
// peer to run. Sleeping comes last because a futex wake-up costs ~50 us on the virtual machines
// this was measured on: more than a small message's whole AllReduce (docs/BENCHMARKS.md).
#include <sched.h>

#include <chrono>
#include <thread>

namespace ringlab::transport {

class WaitPolicy {
 public:
  static constexpr int kSpinIterations = 2000;
  static constexpr auto kYieldFor = std::chrono::microseconds(200);

  explicit WaitPolicy(int ranks)
      : spinIterations_(
            ranks > static_cast<int>(std::thread::hardware_concurrency()) ? 0 : kSpinIterations) {}

  // Polls done() while spinning, then while yielding; returns its last answer. A false answer
  // means the caller should sleep.
  template <typename Done>
  bool spinThenYield(Done&& done) const {
    if (done()) return true;
    for (int i = 0; i < spinIterations_; ++i) {
      __builtin_ia32_pause();
      if (done()) return true;
    }
    const auto until = std::chrono::steady_clock::now() + kYieldFor;
    for (int i = 1;; ++i) {
      sched_yield();
      if (done()) return true;
      if (i % 16 == 0 && std::chrono::steady_clock::now() >= until) return false;
    }
  }

 private:
  int spinIterations_;
};

}  // namespace ringlab::transport
