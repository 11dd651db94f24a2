// Faults made on purpose (RINGLAB_FAULT, a test-only switch; transport/fault_injection.hpp) and
// what ringlab must do about them, with real ranks: bench's check counts a corrupted element,
// a dropped segment and a call slower than --timeout end in a named error by the call's deadline,
// a delay within it changes nothing, when a rank is stopped or killed (mid-collective or while
// connecting) every survivor blames that rank and reports before the launcher kills it, and a
// rank that stops sending is named by every rank.
// Each attribution scenario runs several times: it must name the right rank every time.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "run_ringlab.hpp"

namespace {

using ringlab::test::CliResult;
using Clock = std::chrono::steady_clock;

constexpr int kRepeats = 5;
// Generous: the machine may be shared with builds. The point is "by the deadline", not speed.
constexpr double kMarginSeconds = 4.0;

// RINGLAB_FAULT for the children of one test, unset again at its end.
class FaultEnvironment {
 public:
  explicit FaultEnvironment(const std::string& plan) { setenv("RINGLAB_FAULT", plan.c_str(), 1); }
  ~FaultEnvironment() { unsetenv("RINGLAB_FAULT"); }
};

struct Timed {
  CliResult result;
  double seconds = 0;
};

Timed runWithFault(const std::string& plan, const std::string& command) {
  FaultEnvironment fault(plan);
  const auto start = Clock::now();
  Timed t{ringlab::test::runRinglab(ringlab::test::splitWords(command), 60), 0};
  t.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return t;
}

std::vector<std::string> errorLines(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("ringlab: error: ", 0) == 0) lines.push_back(line);
  }
  return lines;
}

// The rank an error line blames: the first rank it names other than the reporting one
// ("rank 0: rank 1 is stopped ...", "rank 2 connecting to rank 1 at ..."); -1 if none.
int blamedRank(const std::string& line) {
  static const std::regex rankNumber("rank (\\d+)");
  int reporter = -1;
  for (std::sregex_iterator it(line.begin(), line.end(), rankNumber), end; it != end; ++it) {
    const int r = std::stoi((*it)[1]);
    if (reporter < 0) {
      reporter = r;
    } else if (r != reporter) {
      return r;
    }
  }
  return -1;
}

// The fields of the bench row of `bytes`: size count type op, then time algbw busbw #wrong out of
// place and the same in place.
std::vector<std::string> rowFields(const std::string& out, const std::string& bytes) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string w; words >> w;) fields.push_back(w);
    if (fields.size() == 12 && fields[0] == bytes) return fields;
  }
  return {};
}

// "tcp_channels" is tcp with three connections per pair of ranks (ChannelsEnvironment).
std::string bench(const std::string& transport, int p, const std::string& size,
                  const std::string& timeout, int iterations = 1) {
  const std::string kind = transport == "tcp_channels" ? "tcp" : transport;
  return "bench -p " + std::to_string(p) + " --transport " + kind + " -b " + size + " -e " + size +
         " -n " + std::to_string(iterations) + " -w 0 -c 1 --timeout " + timeout;
}

// RINGLAB_TCP_CHANNELS=3 and RINGLAB_TCP_REDUCE_ON_RECEIVE=1 for the children of a "tcp_channels"
// test, unset again at its end: a fault then hits one connection of several, and the rank to
// blame must still be found.
class ChannelsEnvironment : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "tcp_channels") return;
    setenv("RINGLAB_TCP_CHANNELS", "3", 1);
    setenv("RINGLAB_TCP_REDUCE_ON_RECEIVE", "1", 1);
  }
  void TearDown() override {
    unsetenv("RINGLAB_TCP_CHANNELS");
    unsetenv("RINGLAB_TCP_REDUCE_ON_RECEIVE");
  }
};

class Faults : public ChannelsEnvironment {};

// One element corrupted on the wire per call, in rank 1's first message of the reduce-scatter:
// the wrong partial sum is then gathered to all p = 3 ranks, so each checked run has exactly 3
// wrong elements (out of place and in place: 6 in total).
TEST_P(Faults, CorruptedElementIsCountedByBenchsCheck) {
  const Timed t = runWithFault("corrupt,rank=1,count=1024", bench(GetParam(), 3, "4K", "2s"));
  EXPECT_NE(t.result.status, 0) << "wrong elements must fail the run";
  const std::vector<std::string> row = rowFields(t.result.out, "4096");
  ASSERT_EQ(row.size(), 12u) << t.result.out << t.result.err;
  EXPECT_EQ(row[7], "3") << "out-of-place #wrong: " << t.result.out;
  EXPECT_EQ(row[11], "3") << "in-place #wrong: " << t.result.out;
  EXPECT_NE(t.result.out.find("# wrong elements in total: 6"), std::string::npos) << t.result.out;
}

// A segment that never arrives: a Timeout naming the receive and the peer, by the deadline.
TEST_P(Faults, DroppedSegmentIsANamedErrorByTheDeadline) {
  const Timed t = runWithFault("drop,rank=1,count=1024", bench(GetParam(), 3, "4K", "1s"));
  EXPECT_NE(t.result.status, 0);
  const std::vector<std::string> errors = errorLines(t.result.err);
  ASSERT_FALSE(errors.empty()) << t.result.err;
  for (const std::string& line : errors) {
    EXPECT_NE(line.find("receive of "), std::string::npos) << line;
    EXPECT_NE(line.find(" within "), std::string::npos) << line;
  }
  EXPECT_LT(t.seconds, 1.0 + kMarginSeconds) << t.result.err;
}

// The deadline is one per call, from its start: rank 1 sleeping 400 ms before each of its four
// messages makes the call take 1.6 s although no single wait reaches the 1 s timeout.
TEST_P(Faults, CallSlowerThanTheTimeoutFailsByItsDeadline) {
  const Timed t =
      runWithFault("delay,rank=1,count=16384,ms=400,every", bench(GetParam(), 3, "64K", "1s"));
  EXPECT_NE(t.result.status, 0) << t.result.out;
  const std::vector<std::string> errors = errorLines(t.result.err);
  ASSERT_FALSE(errors.empty()) << t.result.err;
  EXPECT_NE(errors[0].find(" within "), std::string::npos) << errors[0];
  EXPECT_LT(t.seconds, 1.0 + kMarginSeconds) << t.result.err;
}

// A rank 300 ms late in every call, well within the 2 s deadline: every element still exact
// (the check compares bitwise with the closed form), and the time shows the delay happened.
TEST_P(Faults, DelayWithinTheDeadlineChangesNothing) {
  const Timed t = runWithFault("delay,rank=1,count=1024,ms=300", bench(GetParam(), 3, "4K", "2s"));
  EXPECT_EQ(t.result.status, 0) << t.result.err;
  EXPECT_NE(t.result.out.find("# wrong elements in total: 0"), std::string::npos) << t.result.out;
  const std::vector<std::string> row = rowFields(t.result.out, "4096");
  ASSERT_EQ(row.size(), 12u) << t.result.out;
  EXPECT_GE(std::stod(row[4]), 300000.0) << "the delay was not injected: " << t.result.out;
}

INSTANTIATE_TEST_SUITE_P(Transports, Faults,
                         ::testing::Values("inproc", "shm", "tcp", "tcp_channels"));

TEST(FaultSwitch, BadPlanIsOneCleanLine) {
  const Timed t = runWithFault("explode,rank=1", bench("inproc", 2, "4K", "1s"));
  EXPECT_NE(t.result.status, 0);
  EXPECT_NE(t.result.err.find("RINGLAB_FAULT='explode,rank=1': unknown kind 'explode'"),
            std::string::npos)
      << t.result.err;
}

// Runs `command` with `plan` kRepeats times; every survivor must report (the launcher must not
// have killed it first), blame `culprit`, and do so by `deadlineSeconds` (+ margin).
void expectEverySurvivorBlames(const std::string& plan, const std::string& command, int survivors,
                               int culprit, double deadlineSeconds) {
  int right = 0;
  for (int i = 0; i < kRepeats; ++i) {
    const Timed t = runWithFault(plan, command);
    const std::vector<std::string> errors = errorLines(t.result.err);
    bool ok = t.result.status != 0 && static_cast<int>(errors.size()) == survivors &&
              t.seconds < deadlineSeconds + kMarginSeconds;
    for (const std::string& line : errors) ok = ok && blamedRank(line) == culprit;
    EXPECT_TRUE(ok) << "run " << i + 1 << " (" << t.seconds << " s):\n" << t.result.err;
    right += ok;
  }
  EXPECT_EQ(right, kRepeats) << "the right rank named in " << right << " of " << kRepeats;
}

class Attribution : public ChannelsEnvironment {};

// Rank 1 stops (SIGSTOP) in the middle of its first allreduce at p = 3: both survivors name it.
TEST_P(Attribution, RankStoppedMidCollectiveIsNamedByEverySurvivor) {
  expectEverySurvivorBlames("stop,rank=1,count=65536", bench(GetParam(), 3, "256K", "1s", 20), 2, 1,
                            1.0);
}

// Rank 1 killed (SIGKILL) at its first data message of a 1 MiB allreduce at p = 3: with several
// channels per pair, its segments were spread over all of them when it died.
TEST_P(Attribution, RankKilledMidCollectiveIsNamedByEverySurvivor) {
  expectEverySurvivorBlames("kill,rank=1,count=262144", bench(GetParam(), 3, "1M", "1s", 20), 2, 1,
                            1.0);
}

// The rank a "stopped sending" line names: "rank 2: rank 1 stopped sending: ..." or, on the
// rank that stopped, "rank 1: rank 1 (this rank) stopped sending: ..."; -1 if it names none.
int stoppedSender(const std::string& line) {
  static const std::regex blame("rank (\\d+)( \\(this rank\\))? stopped sending");
  std::smatch match;
  return std::regex_search(line, match, blame) ? std::stoi(match[1]) : -1;
}

// A rank that silently stops sending (drop: its first message to the next rank, and all after
// it) stays alive and answers every abort, as do all the others, so only where each rank waits
// tells it apart: the rank it feeds waits at the earliest step. At p = 3 and p = 4, with the
// first, a middle and the last rank dropping, every rank (the dropping one too) must name it.
// Under recursive doubling, two ranks finish the call and wait in the next one: positions compare
// by call first. Before, each rank named the rank its own wait was for, or the first to abort's,
// so most lines blamed a downstream rank.
TEST_P(Attribution, RankThatStopsSendingIsNamedByEveryRank) {
  struct Drop {
    int p, rank;
    std::string algorithm;
  };
  for (const Drop& drop :
       {Drop{3, 0, "ring"}, Drop{3, 1, "ring"}, Drop{3, 2, "ring"}, Drop{4, 0, "ring"},
        Drop{4, 2, "ring"}, Drop{4, 3, "ring"}, Drop{4, 1, "recursive_doubling"}}) {
    const Timed t =
        runWithFault("drop,rank=" + std::to_string(drop.rank) + ",count=1024",
                     bench(GetParam(), drop.p, "4K", "1s") + " --algo " + drop.algorithm);
    const std::vector<std::string> errors = errorLines(t.result.err);
    EXPECT_NE(t.result.status, 0);
    EXPECT_EQ(errors.size(), static_cast<std::size_t>(drop.p)) << t.result.err;
    for (const std::string& line : errors) {
      EXPECT_EQ(stoppedSender(line), drop.rank) << drop.algorithm << " at p = " << drop.p
                                                << ", rank " << drop.rank << " dropping: " << line;
    }
    EXPECT_LT(t.seconds, 1.0 + kMarginSeconds) << t.result.err;
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, Attribution, ::testing::Values("shm", "tcp", "tcp_channels"));

// p = 4 over tcp, rank 1 stopped or killed while connecting (after it reached rank 0, before it
// accepted ranks 2 and 3): rank 0, already through setup, must not blame rank 3.
TEST(Attribution, RankStoppedDuringRendezvousIsNamed) {
  expectEverySurvivorBlames("stop,rank=1,at=setup", bench("tcp", 4, "4K", "2s"), 3, 1, 2.0);
}

TEST(Attribution, RankKilledDuringRendezvousIsNamed) {
  expectEverySurvivorBlames("kill,rank=1,at=setup", bench("tcp", 4, "4K", "2s"), 3, 1, 2.0);
}

// A rank killed while shm ranks meet: the survivors wait for it until their timeout (2 s), longer
// than the launcher's --grace 1s; the launcher must let them report rather than kill them.
TEST(Attribution, LauncherLetsSurvivorsReportBeforeItKillsThem) {
  const Timed t = runWithFault("kill,rank=1,at=setup", "launch -p 3 --grace 1s -- " +
                                                           std::string(RINGLAB_BINARY) + " " +
                                                           bench("shm", 3, "4K", "2s"));
  EXPECT_NE(t.result.status, 0);
  const std::vector<std::string> errors = errorLines(t.result.err);
  EXPECT_EQ(errors.size(), 2u) << t.result.err;
  for (const std::string& line : errors) {
    EXPECT_NE(line.find("rank(s) 1 did not arrive"), std::string::npos) << line;
  }
  EXPECT_EQ(t.result.err.find("killing"), std::string::npos) << t.result.err;
}

}  // namespace
