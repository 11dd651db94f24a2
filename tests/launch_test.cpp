// Ranks as real processes: `ringlab launch` and `ringlab bench --transport shm|tcp`, end to end,
// with the faults the issue names: a rank killed with SIGKILL mid-collective, Ctrl-C, ranks that
// disagree, a command that fails. The launcher runs as a child of the test with its output in
// files; its ranks are found as its children in /proc.
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#ifndef RINGLAB_BINARY
#error "RINGLAB_BINARY must be defined as the path of the ringlab executable"
#endif

namespace {

using Clock = std::chrono::steady_clock;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// Where a Child's stdout and stderr go: temporary files, or a pipe whose reader has exited
// (`ringlab ... 2>&1 | true`).
enum class Output { Files, ClosedPipe };

// A ringlab process started by the test, with stdout and stderr in temporary files.
class Child {
 public:
  explicit Child(std::vector<std::string> args, std::map<std::string, std::string> env = {},
                 Output output = Output::Files) {
    static int serial = 0;
    const std::string base = ::testing::TempDir() + "ringlab_launch_" + std::to_string(getpid()) +
                             "_" + std::to_string(serial++);
    outPath_ = base + ".out";
    errPath_ = base + ".err";
    args.insert(args.begin(), RINGLAB_BINARY);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(nullptr);
    int pipeEnds[2] = {-1, -1};
    if (output == Output::ClosedPipe && pipe(pipeEnds) != 0) ADD_FAILURE() << "pipe failed";
    pid_ = fork();
    if (pid_ == 0) {
      const int out = open(outPath_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      const int err = open(errPath_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      const int in = open("/dev/null", O_RDONLY);
      dup2(in, 0);
      dup2(output == Output::ClosedPipe ? pipeEnds[1] : out, 1);
      dup2(output == Output::ClosedPipe ? pipeEnds[1] : err, 2);
      if (output == Output::ClosedPipe) close(pipeEnds[0]);
      for (const auto& [key, value] : env) setenv(key.c_str(), value.c_str(), 1);
      execv(argv[0], argv.data());
      _exit(127);
    }
    if (output == Output::ClosedPipe) {
      close(pipeEnds[0]);  // the reader exits before anything is written
      close(pipeEnds[1]);
    }
  }

  ~Child() {
    if (!reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    std::remove(outPath_.c_str());
    std::remove(errPath_.c_str());
  }

  pid_t pid() const { return pid_; }

  // Waits up to `limit`; returns false if the process is still running then.
  bool waitFor(std::chrono::milliseconds limit) {
    const auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        status_ = status;
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  int exitCode() const {
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
  }
  std::string out() const { return slurp(outPath_); }
  std::string err() const { return slurp(errPath_); }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string outPath_, errPath_;
};

// The launcher's children, by rank (from RINGLAB_RANK in their environment).
std::map<int, pid_t> ranksOf(pid_t launcher) {
  std::map<int, pid_t> ranks;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid != launcher) continue;
    const std::string environ = slurp(entry.path() / "environ");
    const std::string key = std::string("RINGLAB_RANK=");
    const std::size_t at = environ.find(key);
    if (at != std::string::npos && (at == 0 || environ[at - 1] == '\0')) {
      ranks[std::stoi(environ.substr(at + key.size()))] = std::stoi(name);
    }
  }
  return ranks;
}

std::map<int, pid_t> waitForRanks(pid_t launcher, std::size_t p) {
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  std::map<int, pid_t> ranks;
  while (Clock::now() < deadline && (ranks = ranksOf(launcher)).size() < p) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ranks;
}

std::vector<std::string> sharedMemoryNames(const std::string& job) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm")) {
    const std::string name = entry.path().filename();
    if (name.rfind("ringlab-" + job + "-", 0) == 0) names.push_back(name);
  }
  return names;
}

std::string uniqueJob(const char* tag) {
  return std::string(tag) + std::to_string(getpid());
}

int countLines(const std::string& text, const std::string& prefix) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0;
  return n;
}

class ProcessTransport : public ::testing::TestWithParam<std::string> {};

TEST_P(ProcessTransport, BenchRunsAsProcessesAndChecksEveryElement) {
  Child bench({"bench", "-p", "3", "--transport", GetParam(), "-b", "8", "-e", "1M", "-f", "16",
               "-n", "3"});
  ASSERT_TRUE(bench.waitFor(std::chrono::seconds(60))) << "hung";
  EXPECT_EQ(bench.exitCode(), 0) << bench.err();
  EXPECT_NE(bench.out().find("transport " + GetParam() + "  p 3"), std::string::npos)
      << bench.out();
  EXPECT_NE(bench.out().find("placement: one process per rank"), std::string::npos) << bench.out();
  // tcp ranks may run on several hosts: the record must not claim one.
  const std::string topology = GetParam() == "tcp"
                                   ? "topology: as launched: tcp ranks may span hosts"
                                   : "topology: single host";
  EXPECT_NE(bench.out().find(topology), std::string::npos) << bench.out();
  EXPECT_NE(bench.out().find("# wrong elements in total: 0"), std::string::npos) << bench.out();
  EXPECT_EQ(countLines(bench.out(), "# ringlab bench"), 1) << "only rank 0 prints the table";
}

// tune under `ringlab launch`: one rank's part each, one table (rank 0's) naming the transport
// and placement, with every algorithm's time in every round.
TEST_P(ProcessTransport, TuneUnderRinglabLaunchWritesOneTableOfTheJob) {
  const std::string table = ::testing::TempDir() + "ringlab_tune_" + GetParam() + "_" +
                            std::to_string(getpid()) + ".json";
  Child launch({"launch", "-p",          "3",        "--",      RINGLAB_BINARY,
                "tune",   "--transport", GetParam(), "-b",      "8",
                "-e",     "4K",          "-f",       "8",       "-n",
                "2",      "--rounds",    "2",        "--algos", "ring,recursive_doubling",
                "--json", table});
  ASSERT_TRUE(launch.waitFor(std::chrono::seconds(60))) << "hung";
  EXPECT_EQ(launch.exitCode(), 0) << launch.err();
  EXPECT_EQ(countLines(launch.out(), "# ringlab tune"), 1) << "only rank 0 prints the table";
  EXPECT_NE(launch.out().find("transport " + GetParam() + " (one process per rank)"),
            std::string::npos)
      << launch.out();
  const std::string json = slurp(table);
  std::remove(table.c_str());
  for (const std::string& field :
       {"\"transport\": \"" + GetParam() + "\"", std::string("\"p\": 3"),
        std::string("\"placement\": \"one process per rank\""),
        std::string("\"default_algorithm\": \"ring\""), std::string("\"rounds_us\"")})
    EXPECT_NE(json.find(field), std::string::npos) << field << " in " << json;
}

// Bench at p = 3 of `size` with a 2 s timeout; SIGKILL rank 1 once it runs: the others fail
// (naming it) within their timeout, exit non-zero, and the job leaves no shared-memory names
// behind.
void expectRankKilledMidRunFailsTheOthers(const std::string& transport, const std::string& size,
                                          std::map<std::string, std::string> env) {
  const std::string job = uniqueJob("kill");
  env["RINGLAB_JOB"] = job;
  Child bench({"bench", "-p", "3", "--transport", transport, "--timeout", "2s", "-b", size, "-e",
               size, "-n", "1000000", "-c", "0"},
              env);
  const std::map<int, pid_t> ranks = waitForRanks(bench.pid(), 3);
  ASSERT_EQ(ranks.size(), 3u);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // connected and running
  ASSERT_EQ(kill(ranks.at(1), SIGKILL), 0);
  const auto killed = Clock::now();
  ASSERT_TRUE(bench.waitFor(std::chrono::seconds(15))) << "the job hung after a rank died";
  const double seconds = std::chrono::duration<double>(Clock::now() - killed).count();
  EXPECT_LT(seconds, 2.0 + 1.5) << "survivors took longer than their timeout to fail";
  EXPECT_NE(bench.exitCode(), 0);
  const std::string err = bench.err();
  EXPECT_NE(err.find("rank 1 was killed by signal"), std::string::npos) << err;
  EXPECT_EQ(countLines(err, "ringlab: error: "), 2) << "both survivors report: " << err;
  EXPECT_NE(err.find("rank 1"), std::string::npos) << err;
  EXPECT_EQ(err.find("killing"), std::string::npos) << "survivors had to be killed: " << err;
  EXPECT_TRUE(sharedMemoryNames(job).empty());
}

TEST_P(ProcessTransport, KilledRankMakesEveryOtherRankFailWithinTheTimeout) {
  expectRankKilledMidRunFailsTheOthers(GetParam(), "256K", {});
}

// Ranks whose sizes differ fail before any data moves, every rank with both calls named.
TEST_P(ProcessTransport, RanksThatDisagreeAllFailWithMismatch) {
  const std::string script =
      std::string("exec ") + RINGLAB_BINARY + " bench --transport " + GetParam() +
      " -b $((8 + 4 * RINGLAB_RANK)) -e $((8 + 4 * RINGLAB_RANK)) -n 1 --timeout 5s";
  Child launch({"launch", "-p", "2", "--", "sh", "-c", script});
  ASSERT_TRUE(launch.waitFor(std::chrono::seconds(30))) << "hung";
  EXPECT_NE(launch.exitCode(), 0);
  const std::string err = launch.err();
  EXPECT_EQ(countLines(err, "ringlab: error: rank "), 2) << err;
  EXPECT_NE(err.find("rank 0 called allreduce of 2 x float32"), std::string::npos) << err;
  EXPECT_NE(err.find("rank 1 called allreduce of 3 x float32"), std::string::npos) << err;
}

// calibrate under `ringlab launch`: every rank takes its part over the job's transport; rank 0
// prints one calibration and writes one profile that records the transport, p and placement.
// Up to 4 MiB, 5 iterations: with 1 MiB and 3, a ping-pong over shm grows by about 30 us from the
// smallest size to the largest, and a loaded machine's noise once fitted that as a non-positive
// slope, which calibrate rightly refuses (it then fails the job).
TEST_P(ProcessTransport, CalibrateUnderLaunchMeasuresOverTheJobsTransport) {
  const std::filesystem::path profile =
      std::filesystem::temp_directory_path() / (uniqueJob("calibrate-") + GetParam() + ".json");
  Child launch({"launch", "-p", "4", "--", RINGLAB_BINARY, "calibrate", "--transport", GetParam(),
                "-b", "8", "-e", "4M", "-n", "5", "--rounds", "2", "--json", profile.string()});
  ASSERT_TRUE(launch.waitFor(std::chrono::seconds(60))) << "hung";
  EXPECT_EQ(launch.exitCode(), 0) << launch.err();
  EXPECT_EQ(countLines(launch.out(), "# ringlab calibrate: transport " + GetParam() + ", p 4, "), 1)
      << launch.out();
  EXPECT_NE(launch.out().find("# 95% intervals"), std::string::npos) << launch.out();
  // Four ranks hold two pairs: the concurrency sweep times 1 and 2 at once.
  EXPECT_NE(launch.out().find("\n       2 "), std::string::npos) << launch.out();
  std::ifstream in(profile);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(profile);
  EXPECT_NE(text.find("\"transport\": \"" + GetParam() + "\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"job_ranks\": 4"), std::string::npos) << text;
  EXPECT_NE(text.find("\"placement\": \"one process per rank\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"half_width_95\""), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(Transports, ProcessTransport, ::testing::Values("shm", "tcp"));

// Single copy between processes: bench's buffers come from the transport, and with the threshold
// at 1 KiB its sizes (odd element counts, blocks that are no multiple of a segment) mix messages
// read straight from the sender's buffer with messages copied through the slots, for every dtype
// and op; every element is checked against its closed form.
void expectSingleCopyExactForEveryTypeAndOp(const std::map<std::string, std::string>& env) {
  Child bench({"bench",  "-p", "3", "--transport", "shm", "-b",        "1000", "-e",
               "400000", "-f", "7", "-d",          "all", "-o",        "all",  "-n",
               "1",      "-w", "0", "-c",          "1",   "--segment", "40000"},
              env);
  ASSERT_TRUE(bench.waitFor(std::chrono::seconds(60))) << "hung";
  EXPECT_EQ(bench.exitCode(), 0) << bench.err();
  EXPECT_NE(bench.out().find("# wrong elements in total: 0"), std::string::npos) << bench.out();
  EXPECT_EQ(bench.err().find("two-copy path"), std::string::npos) << bench.err();
}

TEST(SingleCopy, ProcessesReadEachOthersBuffersExactlyForEveryTypeAndOp) {
  expectSingleCopyExactForEveryTypeAndOp({{"RINGLAB_SHM_SINGLE_COPY", "1K"}});
}

// The same with every single-copy receive written by streaming stores (the threshold at 1 byte
// of vector): out-of-place reduces and copies, odd sizes and destinations off 16 bytes.
TEST(SingleCopy, StreamingStoresGiveTheSameResultsForEveryTypeAndOp) {
  expectSingleCopyExactForEveryTypeAndOp(
      {{"RINGLAB_SHM_SINGLE_COPY", "1K"}, {"RINGLAB_SHM_STREAMING", "1"}});
}

// SIGKILL a rank while its peers read its buffer in place: the readers' mappings keep the memory,
// so nothing faults, and both survivors fail naming it within their timeout, leaving no names.
TEST(SingleCopy, RankKilledWhileItsBufferIsReadMakesTheOthersFailCleanly) {
  expectRankKilledMidRunFailsTheOthers("shm", "1M", {{"RINGLAB_SHM_SINGLE_COPY", "1K"}});
}

TEST(SingleCopy, BadStreamingThresholdIsOneLineNamingIt) {
  Child bench({"bench", "-p", "2", "--transport", "shm", "-b", "8", "-e", "8", "-n", "1"},
              {{"RINGLAB_SHM_STREAMING", "big"}});
  ASSERT_TRUE(bench.waitFor(std::chrono::seconds(30))) << "hung";
  EXPECT_NE(bench.exitCode(), 0);
  EXPECT_NE(bench.err().find("RINGLAB_SHM_STREAMING 'big': use a size"), std::string::npos)
      << bench.err();
}

TEST(SingleCopy, BadThresholdIsOneLineNamingIt) {
  Child bench({"bench", "-p", "2", "--transport", "shm", "-b", "8", "-e", "8", "-n", "1"},
              {{"RINGLAB_SHM_SINGLE_COPY", "lots"}});
  ASSERT_TRUE(bench.waitFor(std::chrono::seconds(30))) << "hung";
  EXPECT_NE(bench.exitCode(), 0);
  EXPECT_NE(bench.err().find("RINGLAB_SHM_SINGLE_COPY 'lots': use a size"), std::string::npos)
      << bench.err();
}

TEST(Launch, CtrlCStopsEveryRankAndCleansUp) {
  const std::string job = uniqueJob("int");
  Child bench({"bench", "-p", "2", "--transport", "shm", "-b", "64K", "-e", "64K", "-n", "1000000",
               "-c", "0"},
              {{"RINGLAB_JOB", job}});
  const std::map<int, pid_t> ranks = waitForRanks(bench.pid(), 2);
  ASSERT_EQ(ranks.size(), 2u);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(bench.pid(), SIGINT), 0);
  ASSERT_TRUE(bench.waitFor(std::chrono::seconds(10))) << "Ctrl-C did not stop the job";
  EXPECT_EQ(bench.exitCode(), 130);
  for (const auto& [rank, pid] : ranks)
    EXPECT_NE(kill(pid, 0), 0) << "rank " << rank << " still runs";
  EXPECT_TRUE(sharedMemoryNames(job).empty());
}

// Names left by ranks that died while setting up (before they unlink them) are the launcher's
// to remove.
TEST(Launch, RemovesSharedMemoryNamesOfItsJob) {
  const std::string job = uniqueJob("left");
  const std::string stale = "/dev/shm/ringlab-" + job + "-0";
  std::ofstream(stale) << "stale";
  ASSERT_EQ(sharedMemoryNames(job).size(), 1u);
  Child launch({"launch", "-p", "2", "--", "true"}, {{"RINGLAB_JOB", job}});
  ASSERT_TRUE(launch.waitFor(std::chrono::seconds(10)));
  EXPECT_EQ(launch.exitCode(), 0) << launch.err();
  EXPECT_TRUE(sharedMemoryNames(job).empty());
}

// A launched rank takes p from its launcher before it checks anything against p.
TEST(Launch, RanksTakePFromTheLauncher) {
  Child launch({"launch", "-p", "3", "--", RINGLAB_BINARY, "bench", "--transport", "shm",
                "--ring-order", "2,0,1", "-b", "8", "-e", "8", "-n", "1"});
  ASSERT_TRUE(launch.waitFor(std::chrono::seconds(30)));
  EXPECT_EQ(launch.exitCode(), 0) << launch.err();
  EXPECT_NE(launch.out().find("ring order 2,0,1"), std::string::npos) << launch.out();
  Child contradicts(
      {"launch", "-p", "2", "--", RINGLAB_BINARY, "bench", "-p", "3", "--transport", "shm"});
  ASSERT_TRUE(contradicts.waitFor(std::chrono::seconds(30)));
  EXPECT_NE(contradicts.exitCode(), 0);
  EXPECT_NE(contradicts.err().find("-p 3 but this job has 2 ranks"), std::string::npos)
      << contradicts.err();
}

TEST(Launch, GivesEachRankItsEnvironment) {
  Child launch(
      {"launch", "-p", "3", "--", "sh", "-c", "echo rank=$RINGLAB_RANK of $RINGLAB_WORLD_SIZE"});
  ASSERT_TRUE(launch.waitFor(std::chrono::seconds(10)));
  EXPECT_EQ(launch.exitCode(), 0);
  for (int r = 0; r < 3; ++r)
    EXPECT_NE(launch.out().find("rank=" + std::to_string(r) + " of 3"), std::string::npos);
}

TEST(Launch, ReportsAFailingRanksStatus) {
  Child fails({"launch", "-p", "2", "--", "sh", "-c", "exit $((3 + RINGLAB_RANK))"});
  ASSERT_TRUE(fails.waitFor(std::chrono::seconds(10)));
  EXPECT_TRUE(fails.exitCode() == 3 || fails.exitCode() == 4) << fails.exitCode();
  Child missing({"launch", "-p", "2", "--", "/nonexistent/program"});
  ASSERT_TRUE(missing.waitFor(std::chrono::seconds(10)));
  EXPECT_EQ(missing.exitCode(), 127);
  EXPECT_NE(missing.err().find("cannot run /nonexistent/program"), std::string::npos)
      << missing.err();
}

// The job's status is the first failing rank's by when it failed: a rank killed by a signal is
// reaped after the peers that exited because of it (they see its connections close as it dies,
// its parent is told last), and the status was then theirs (1 in 3 runs instead of 137). Here
// rank 1 exits 200 ms before rank 0's death is reaped: 137 every time.
TEST(Launch, StatusIsTheKilledRanksNotThatOfThoseWhoReactedFirst) {
  for (int run = 0; run < 3; ++run) {
    Child c({"launch", "-p", "2", "--", "sh", "-c",
             "if [ $RINGLAB_RANK = 0 ]; then sleep 0.5; kill -9 $$; else sleep 0.3; exit 1; fi"});
    ASSERT_TRUE(c.waitFor(std::chrono::seconds(10)));
    EXPECT_EQ(c.exitCode(), 137) << c.err();
  }
  // A rank that fails well before another is killed keeps the status: its own.
  Child late({"launch", "-p", "2", "--grace", "5s", "--", "sh", "-c",
              "if [ $RINGLAB_RANK = 0 ]; then sleep 1.6; kill -9 $$; else sleep 0.1; exit 3; fi"});
  ASSERT_TRUE(late.waitFor(std::chrono::seconds(10)));
  EXPECT_EQ(late.exitCode(), 3) << late.err();
}

TEST(Launch, BadInputIsOneCleanLine) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"bench", "--transport", "pigeon"},
        std::vector<std::string>{"bench", "--peer-mpi"},
        std::vector<std::string>{"launch", "-p", "0", "--", "true"},
        std::vector<std::string>{"launch", "-p", "2", "--grace", "-1", "--", "true"}}) {
    Child c(args);
    ASSERT_TRUE(c.waitFor(std::chrono::seconds(10)));
    EXPECT_EQ(c.exitCode(), 2) << args[1] << ": " << c.err();
    EXPECT_EQ(countLines(c.err(), "ringlab: error: "), 1) << c.err();
  }
}

std::string makeTempDir(const char* tag) {
  std::string pattern = ::testing::TempDir() + "ringlab_" + tag + "_XXXXXX";
  if (!mkdtemp(pattern.data())) ADD_FAILURE() << "mkdtemp " << pattern;
  return pattern;
}

// The launcher's output piped to a reader that has exited: its report of the failing rank meets
// EPIPE, not SIGPIPE (exit 141); it still exits with the rank's status and removes its rendezvous
// directory.
TEST(Launch, OutputReaderThatExitedStillGetsTheStatusAndTheCleanup) {
  const std::string tmp = makeTempDir("pipe");
  Child launch({"launch", "-p", "2", "--", "sh", "-c", "sleep 0.2; exit 3"}, {{"TMPDIR", tmp}},
               Output::ClosedPipe);
  ASSERT_TRUE(launch.waitFor(std::chrono::seconds(10))) << "hung";
  EXPECT_EQ(launch.exitCode(), 3) << "141 is death by SIGPIPE";
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "a rendezvous directory is left in " << tmp;
  std::filesystem::remove_all(tmp);
}

// A launcher killed with SIGKILL cannot clean up itself: its rendezvous directory was left in
// TMPDIR. The process it leaves to watch for its end removes it.
TEST(Launch, KilledLauncherLeavesNoRendezvousDirectory) {
  const std::string tmp = makeTempDir("killed");
  Child launch({"launch", "-p", "2", "--", "sleep", "30"}, {{"TMPDIR", tmp}});
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (std::filesystem::is_empty(tmp) && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_FALSE(std::filesystem::is_empty(tmp)) << "no rendezvous directory was made";
  kill(launch.pid(), SIGKILL);
  ASSERT_TRUE(launch.waitFor(std::chrono::seconds(5)));
  while (!std::filesystem::is_empty(tmp) && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "a rendezvous directory is left in " << tmp;
  std::filesystem::remove_all(tmp);
}

// A TMPDIR where no directory can be made: one line naming it, as before the rendezvous directory
// was made by the process that cleans up after the launcher, which now reports the failure.
TEST(Launch, TmpdirWhereNoDirectoryCanBeMadeIsOneLine) {
  const std::string missing = ::testing::TempDir() + "ringlab_no_such_dir/below";
  Child launch({"launch", "-p", "2", "--", "true"}, {{"TMPDIR", missing}});
  ASSERT_TRUE(launch.waitFor(std::chrono::seconds(10))) << "hung";
  EXPECT_NE(launch.exitCode(), 0);
  EXPECT_EQ(countLines(launch.err(), "ringlab: error: cannot create a rendezvous directory " +
                                         missing + "/ringlab-"),
            1)
      << launch.err();
}

// Ended and reaped: the launcher adopts what its ranks leave behind and waits for it, so not even a
// zombie is left when it has exited.
bool processGone(pid_t pid) {
  return !std::filesystem::exists("/proc/" + std::to_string(pid));
}

// The pid a rank's worker wrote to `file`, once it has; 0 if it did not within the deadline.
pid_t workerPid(const std::string& file, Clock::time_point deadline) {
  pid_t pid = 0;
  while (pid == 0 && Clock::now() < deadline) {
    std::ifstream(file) >> pid;
    if (pid == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pid;
}

// Ranks run through `sh -c` without exec: each does its work in the shell's child, and rank 1's
// is stopped. SIGTERM to the launcher ends each rank's whole process group, the stopped process
// continued and ended too, before the launcher exits.
TEST(Launch, EndsWhatRanksStartedThroughAShellEvenWhenStopped) {
  const std::string dir = makeTempDir("pgrp");
  const std::string script =
      "sh -c 'echo $$ > " + dir + "/worker.$RINGLAB_RANK; exec sleep 300'; true";
  Child launch({"launch", "-p", "2", "--", "sh", "-c", script});
  std::vector<pid_t> workers;
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  for (int r = 0; r < 2; ++r) {
    const pid_t pid = workerPid(dir + "/worker." + std::to_string(r), deadline);
    ASSERT_GT(pid, 0) << "rank " << r << "'s worker did not start";
    workers.push_back(pid);
  }
  ASSERT_EQ(kill(workers[1], SIGSTOP), 0);
  ASSERT_EQ(kill(launch.pid(), SIGTERM), 0);
  ASSERT_TRUE(launch.waitFor(std::chrono::seconds(10))) << "the launcher did not stop";
  EXPECT_EQ(launch.exitCode(), 130) << launch.err();
  for (std::size_t r = 0; r < workers.size(); ++r) {
    EXPECT_TRUE(processGone(workers[r])) << "rank " << r << "'s worker outlived the launcher";
    kill(workers[r], SIGKILL);  // whatever the outcome, leave nothing behind
  }
  std::filesystem::remove_all(dir);
}

// SIGKILL takes effect asynchronously, and a process with much memory takes a while to die (its
// pages are freed on the way out): a launcher that exited right after signalling left such a
// worker still running, state R, most times. The worker here holds 256 MiB that it has written
// (tail keeps the last 256 MiB of its input), and the launcher must wait until it is gone.
TEST(Launch, ExitsOnlyOnceWhatRanksStartedHasEnded) {
  const std::string dir = makeTempDir("reap");
  const std::string script =
      "{ head -c 256M /dev/zero; exec sleep 300; } | tail -c 256M & echo $! > " + dir +
      "/worker; wait; true";
  Child launch({"launch", "-p", "1", "--", "sh", "-c", script});
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  const pid_t worker = workerPid(dir + "/worker", deadline);
  ASSERT_GT(worker, 0) << "the worker did not start";
  const auto residentKiB = [&] {
    std::ifstream status("/proc/" + std::to_string(worker) + "/status");
    for (std::string key; status >> key;) {
      long kib = 0;
      if (key == "VmRSS:" && status >> kib) return kib;
    }
    return 0L;
  };
  while (residentKiB() < 250 * 1024 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE(residentKiB(), 250 * 1024) << "the worker did not fill its memory";
  ASSERT_EQ(kill(launch.pid(), SIGTERM), 0);
  ASSERT_TRUE(launch.waitFor(std::chrono::seconds(10))) << "the launcher did not stop";
  EXPECT_EQ(launch.exitCode(), 130) << launch.err();
  EXPECT_TRUE(processGone(worker)) << "the worker outlived the launcher";
  kill(worker, SIGKILL);
  std::filesystem::remove_all(dir);
}

// A port nobody listens on now (the kernel's pick), for a rendezvous.
int freePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

// Two ranks of `command` started as torchrun starts them: its variables (and the job token TCP
// needs), and no --transport. Each has finished, with status 0, when this returns.
std::vector<std::unique_ptr<Child>> runUnderTorchrun(const std::vector<std::string>& command) {
  const std::string port = std::to_string(freePort());
  std::vector<std::unique_ptr<Child>> ranks;
  for (int r = 0; r < 2; ++r) {
    ranks.push_back(std::make_unique<Child>(
        command, std::map<std::string, std::string>{{"RANK", std::to_string(r)},
                                                    {"LOCAL_RANK", std::to_string(r)},
                                                    {"WORLD_SIZE", "2"},
                                                    {"LOCAL_WORLD_SIZE", "2"},
                                                    {"MASTER_ADDR", "127.0.0.1"},
                                                    {"MASTER_PORT", port},
                                                    {"TORCHELASTIC_RUN_ID", "test"},
                                                    {"RINGLAB_TOKEN", "secret"}}));
  }
  for (auto& rank : ranks) {
    EXPECT_TRUE(rank->waitFor(std::chrono::seconds(60))) << "hung";
    EXPECT_EQ(rank->exitCode(), 0) << rank->err();
  }
  return ranks;
}

// Under torchrun the processes join one tcp job, not p separate runs.
TEST(UnderALauncher, BenchWithTorchrunVariablesJoinsOneTcpJob) {
  const auto ranks =
      runUnderTorchrun({"bench", "-b", "8", "-e", "64", "-n", "2", "--timeout", "20s"});
  EXPECT_NE(ranks[0]->out().find("transport tcp  p 2"), std::string::npos) << ranks[0]->out();
  EXPECT_EQ(countLines(ranks[0]->out(), "# wrong elements in total: 0"), 1) << ranks[0]->out();
  EXPECT_EQ(ranks[1]->out(), "") << "rank 1 prints nothing";
}

TEST(UnderALauncher, CalibrateWithTorchrunVariablesJoinsOneTcpJob) {
  // Sizes and iterations as in CalibrateUnderLaunchMeasuresOverTheJobsTransport, for the same
  // reason.
  const auto ranks = runUnderTorchrun({"calibrate", "-b", "8", "-e", "4M", "-n", "5", "--rounds",
                                       "2", "--timeout", "20s", "--json", "-"});
  // --json -: rank 0 puts the profile alone on standard output.
  EXPECT_NE(ranks[0]->out().find("\"transport\": \"tcp\""), std::string::npos) << ranks[0]->out();
  EXPECT_NE(ranks[0]->out().find("\"job_ranks\": 2"), std::string::npos) << ranks[0]->out();
  EXPECT_EQ(ranks[1]->out(), "") << "rank 1 prints nothing";
}

// Launchers whose transport cannot be used, whatever MPI this ringlab is built for: refused with
// one line that names what was seen and the flag to add. --transport given is always obeyed.
TEST(UnderALauncher, RefusesWhatWouldRunSeparateJobsAndObeysAGivenTransport) {
  Child launched({"launch", "-p", "2", "--", RINGLAB_BINARY, "bench", "-b", "8", "-e", "8"});
  ASSERT_TRUE(launched.waitFor(std::chrono::seconds(30)));
  EXPECT_EQ(launched.exitCode(), 2);
  EXPECT_EQ(countLines(launched.err(), "ringlab: error: under ringlab launch (RINGLAB_RANK="), 2)
      << launched.err();
  EXPECT_NE(launched.err().find("add --transport shm"), std::string::npos) << launched.err();
  EXPECT_EQ(launched.out(), "");

  Child elastic({"bench", "-b", "8", "-e", "8"}, {{"TORCHELASTIC_RUN_ID", "x"}});
  ASSERT_TRUE(elastic.waitFor(std::chrono::seconds(10)));
  EXPECT_EQ(elastic.exitCode(), 2);
  EXPECT_NE(elastic.err().find("torchrun (TORCHELASTIC_RUN_ID=x), but RANK and WORLD_SIZE"),
            std::string::npos)
      << elastic.err();

  // calibrate joins a launcher's job as bench does: under torchrun, it needs its variables too.
  Child calibrate({"calibrate", "-b", "8", "-e", "512", "-n", "3"}, {{"TORCHELASTIC_RUN_ID", "x"}});
  ASSERT_TRUE(calibrate.waitFor(std::chrono::seconds(10)));
  EXPECT_EQ(calibrate.exitCode(), 2);
  EXPECT_EQ(countLines(calibrate.err(), "ringlab: error: "), 1) << calibrate.err();
  EXPECT_NE(calibrate.err().find("torchrun (TORCHELASTIC_RUN_ID=x), but RANK and WORLD_SIZE"),
            std::string::npos)
      << calibrate.err();

  Child given({"bench", "--transport", "inproc", "-p", "2", "-b", "8", "-e", "8", "-n", "1"},
              {{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_RANK", "0"}, {"PMI_SIZE", "2"}});
  ASSERT_TRUE(given.waitFor(std::chrono::seconds(30)));
  EXPECT_EQ(given.exitCode(), 0) << given.err();
  EXPECT_NE(given.out().find("transport inproc  p 2"), std::string::npos) << given.out();
}

// The other MPI's launcher: refused before MPI starts, naming the launcher this build needs.
TEST(UnderALauncher, RefusesTheOtherMpisLauncher) {
  const std::string built = RINGLAB_MPI_FLAVOUR;
  if (built.empty()) GTEST_SKIP() << "built without MPI";
  const std::map<std::string, std::string> other =
      built == "openmpi" ? std::map<std::string, std::string>{{"PMI_SIZE", "2"}, {"PMI_RANK", "0"}}
                         : std::map<std::string, std::string>{{"OMPI_COMM_WORLD_SIZE", "2"}};
  Child bench({"bench", "-b", "8", "-e", "8"}, other);
  ASSERT_TRUE(bench.waitFor(std::chrono::seconds(10)));
  EXPECT_EQ(bench.exitCode(), 2);
  EXPECT_EQ(countLines(bench.err(), "ringlab: error: under "), 1) << bench.err();
  EXPECT_NE(bench.err().find(built == "openmpi" ? "start it with Open MPI's mpirun"
                                                : "start it with MPICH's mpiexec"),
            std::string::npos)
      << bench.err();
}

}  // namespace
