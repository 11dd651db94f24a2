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
// AllReduce at p = 2 instead of 5). A yield that returns late is the sign that another task ran
// on our core meanwhile; for a while after one, a wait spins only if the rank it waits for last
// ran on another core (the caller says). That other task is often not a rank at all but another
// program: then the ranks still have a core each, and a wait without spinning costs a system call
// per look (2.1 us per 8-byte AllReduce at p = 2, against 0.6 with spinning, while a compiler
// ran). With more ranks than cores a wait does not spin, except briefly for a small message from a
// rank that is working (not waiting itself) on another core: that rank is running now and about to
// send, and a yield would cost a switch to another rank and back (8-byte AllReduce at p = 4 on two
// cores: about 3 us against 4.4). Each rank owns its policy.
#include <sched.h>

#include <chrono>
#include <thread>

namespace ringlab::transport {

class WaitPolicy {
 public:
  static constexpr int kSpinIterations = 2000;
  // The brief spin with more ranks than cores: about 9 us here.
  static constexpr int kWorkingPeerSpinIterations = 1000;
  static constexpr auto kYieldFor = std::chrono::microseconds(200);
  // A bare sched_yield takes ~0.15 us here; one that switched to another task takes far longer.
  static constexpr auto kSharedCoreYield = std::chrono::microseconds(5);
  // How long one such yield makes waits ask where their peer runs. A yield can also come straight
  // back while the core is shared (the scheduler may keep us running), so only a late one is
  // believed; if the core is free again, the next wait after this spins as before.
  static constexpr auto kSharedCoreHold = std::chrono::milliseconds(100);

  explicit WaitPolicy(int ranks)
      : maxSpinIterations_(
            ranks > static_cast<int>(std::thread::hardware_concurrency()) ? 0 : kSpinIterations),
        noSpinUntil_() {}

  // Polls done() while spinning, then while yielding; returns its last answer. A false answer
  // means the caller should sleep. waitedRankSharesOurCore() is asked only after a late yield:
  // whether the rank waited for last ran on this core (true where the caller cannot tell).
  // soonFromAWorkingPeer() is asked only with more ranks than cores: whether the wait is for a
  // small message from a rank that is working on another core.
  template <typename Done, typename SharesCore, typename SoonFromAWorkingPeer>
  bool spinThenYield(Done&& done, SharesCore&& waitedRankSharesOurCore,
                     SoonFromAWorkingPeer&& soonFromAWorkingPeer) {
    if (done()) return true;
    using Clock = std::chrono::steady_clock;
    const int spins = maxSpinIterations_ == 0
                          ? (soonFromAWorkingPeer() ? kWorkingPeerSpinIterations : 0)
                      : spinsFirst(waitedRankSharesOurCore) ? maxSpinIterations_
                                                            : 0;
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

  // Whether a wait that starts now spins before it yields.
  template <typename SharesCore>
  bool spinsFirst(SharesCore&& waitedRankSharesOurCore) {
    if (maxSpinIterations_ == 0) return false;
    // The clock is read only while a hold is in force: in the common, unshared case a wait that
    // ends while spinning reads no clock at all.
    if (holding_ && std::chrono::steady_clock::now() >= noSpinUntil_) holding_ = false;
    return !(holding_ && waitedRankSharesOurCore());
  }

 private:
  int maxSpinIterations_;
  std::chrono::steady_clock::time_point noSpinUntil_;  // no spinning before then: core shared
  bool holding_ = false;                               // whether noSpinUntil_ may still be ahead
};

}  // namespace ringlab::transport
