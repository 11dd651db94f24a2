// The wait policy of the transports within a host (transport/wait_policy.hpp): after a yield that
// returned late, a wait spins first only when the rank it waits for runs on another core.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <thread>

#include "transport/wait_policy.hpp"

namespace ringlab::test {
namespace {

void pinTo(const cpu_set_t& set) {
  ASSERT_EQ(sched_setaffinity(0, sizeof set, &set), 0);
}

TEST(WaitPolicy, AfterALateYieldSpinsOnlyWhenThePeerRunsElsewhere) {
  cpu_set_t everywhere, here;
  ASSERT_EQ(sched_getaffinity(0, sizeof everywhere, &everywhere), 0);
  CPU_ZERO(&here);
  CPU_SET(sched_getcpu(), &here);
  pinTo(here);
  // Another busy task on our core: a yield of ours that hands it the core returns late.
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    pinTo(here);
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  transport::WaitPolicy policy(1);
  int asked = 0;
  const auto peerSharesOurCore = [&](bool answer) {
    return [&asked, answer] {
      ++asked;
      return answer;
    };
  };
  EXPECT_TRUE(policy.spinsFirst(peerSharesOurCore(true)));
  EXPECT_EQ(asked, 0) << "asked where the peer runs before any late yield";

  // Waits for what never comes: each spins, then yields for a while; one of its yields is late.
  bool holding = false;
  for (int attempt = 0; attempt < 20 && !holding; ++attempt) {
    EXPECT_FALSE(
        policy.spinThenYield([] { return false; }, peerSharesOurCore(true), [] { return false; }));
    holding = !policy.spinsFirst(peerSharesOurCore(true));
  }
  stop = true;
  busy.join();
  pinTo(everywhere);
  ASSERT_TRUE(holding) << "no yield returned late with a busy task on our core";

  const int before = asked;
  EXPECT_TRUE(policy.spinsFirst(peerSharesOurCore(false))) << "the peer runs on another core";
  EXPECT_FALSE(policy.spinsFirst(peerSharesOurCore(true))) << "the peer shares our core";
  EXPECT_EQ(asked, before + 2);
}

// With more ranks than cores a wait asks only whether a small message is due from a rank working on
// another core; where the caller says no, it never spins and the core question is not asked.
TEST(WaitPolicy, MoreRanksThanCoresAskOnlyWhetherAWorkingPeerSendsSoon) {
  transport::WaitPolicy policy(static_cast<int>(std::thread::hardware_concurrency()) + 1);
  int sharesAsked = 0, soonAsked = 0, looks = 0;
  const auto shares = [&] { return ++sharesAsked, false; };
  EXPECT_TRUE(policy.spinThenYield([&] { return ++looks == 3; }, shares,
                                   [&] { return ++soonAsked, true; }));
  // What arrives by the second look is taken, after a yield at most, however late it returns.
  EXPECT_TRUE(policy.spinThenYield([&] { return ++looks == 5; }, shares,
                                   [&] { return ++soonAsked, false; }));
  EXPECT_EQ(soonAsked, 2);
  EXPECT_EQ(sharesAsked, 0);
}

}  // namespace
}  // namespace ringlab::test
