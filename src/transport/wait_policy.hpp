#pragma once
// How a rank waits for a peer on this host (inproc, shm), before it sleeps on a futex: spin while
// the peer can run beside us (it usually answers within microseconds), then hand the core over
// with sched_yield for a while, which is how a rank whose peer shares its core gets the peer to
// run. Sleeping comes last because a futex wake-up costs ~50 us on the virtual machines this was
// measured on: more than a small message's whole AllReduce (docs/BENCHMARKS.md).
//
// Whether the peer can run beside us is not fixed: with p <= cores the scheduler may still put
// two ranks (or a rank and an unrelated busy process) on one core, and then every spin burns its
// whole budget before the peer gets the core (2000 pauses took 19 us here: 75 us per 16 KiB
// AllReduce at p = 2 instead of 5). A yield that returns late is the sign: another task ran on
// our core meanwhile, and it turns spinning off for a while. Each rank owns its policy.
#include <sched.h>

#include <chrono>
#include <thread>

namespace ringlab::transport {

class WaitPolicy {
 public:
  static constexpr int kSpinIterations = 2000;
  static constexpr auto kYieldFor = std::chrono::microseconds(200);
  // A bare sched_yield takes ~0.15 us here; one that switched to another task takes far longer.
  static constexpr auto kSharedCoreYield = std::chrono::microseconds(5);
  // How long one such yield turns spinning off. A yield can also come straight back while the
  // core is shared (the scheduler may keep us running), so only a late one is believed; if the
  // core is free again, the next wait after this spins as before.
  static constexpr auto kSharedCoreHold = std::chrono::milliseconds(100);

  explicit WaitPolicy(int ranks)
      : maxSpinIterations_(
            ranks > static_cast<int>(std::thread::hardware_concurrency()) ? 0 : kSpinIterations),
        noSpinUntil_() {}

  // Polls done() while spinning, then while yielding; returns its last answer. A false answer
  // means the caller should sleep.
  template <typename Done>
  bool spinThenYield(Done&& done) {
    if (done()) return true;
    using Clock = std::chrono::steady_clock;
    // The clock is read only while a hold is in force: in the common, unshared case a wait that
    // ends while spinning reads no clock at all.
    if (holding_ && Clock::now() >= noSpinUntil_) holding_ = false;
    const int spins = holding_ ? 0 : maxSpinIterations_;
    for (int i = 0; i < spins; ++i) {
      __builtin_ia32_pause();
      if (done()) return true;
    }
    const auto until = Clock::now() + kYieldFor;
    for (;;) {
      const auto before = Clock::now();
      sched_yield();
      const auto after = Clock::now();
      if (after - before > kSharedCoreYield) {
        noSpinUntil_ = after + kSharedCoreHold;
        holding_ = true;
      }
      if (done()) return true;
      if (after >= until) return false;
    }
  }

 private:
  int maxSpinIterations_;
  std::chrono::steady_clock::time_point noSpinUntil_;  // no spinning before then: core shared
  bool holding_ = false;                               // whether noSpinUntil_ may still be ahead
};

}  // namespace ringlab::transport
