#include "ringlab/job/launcher.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "ringlab/bootstrap/rendezvous.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/process.hpp"

namespace ringlab::job {
namespace {

// How much longer than the ranks' declared timeout the others get after one fails.
constexpr std::chrono::milliseconds kGraceBeyondTimeout{2000};
// A rank killed by a signal failed before the ranks that exit because of it, but may be reaped
// after them: survivors see its connections and pidfd close as it exits, and its parent is told
// last (a process with much memory takes a while to die). So a death by a signal reaped within
// this window after the first exit with a status is taken as the first failure.
constexpr std::chrono::milliseconds kReactionWindow{1000};
// How long the launcher waits, after its last SIGKILL, for the ranks' process groups to be gone.
constexpr std::chrono::milliseconds kGroupEndLimit{5000};

std::string randomHex(int bytes) {
  std::random_device device;
  std::string out;
  for (int i = 0; i < bytes; ++i) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", device() & 0xff);
    out += two;
  }
  return out;
}

// The variable's value when it is set and not empty, else `bytes` random bytes in hex.
std::string environmentOrRandom(const char* name, int bytes) {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : randomHex(bytes);
}

std::string temporaryDirectory(const std::string& job) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/ringlab-" + job + "-XXXXXX";
  if (!mkdtemp(pattern.data())) {
    throw Error(ErrorCode::Transport,
                "cannot create a rendezvous directory " + pattern + ": " + std::strerror(errno));
  }
  return pattern;
}

// Names ranks may have created and not yet unlinked when they died: /dev/shm/ringlab-<job>-<rank>.
void removeSharedMemoryNames(const std::string& job) {
  const std::string prefix = "ringlab-" + job + "-";
  DIR* dir = opendir("/dev/shm");
  if (!dir) return;
  while (dirent* entry = readdir(dir)) {
    if (std::strncmp(entry->d_name, prefix.c_str(), prefix.size()) == 0) {
      unlinkat(dirfd(dir), entry->d_name, 0);
    }
  }
  closedir(dir);
}

// A process that outlives the launcher only to clean up after it, however it ends (SIGKILL too):
// it waits on a pipe whose write end only the launcher holds, which the kernel closes when the
// launcher dies, then removes the rendezvous directory and the job's /dev/shm names. It makes the
// directory itself and sends its name back, so that there is no moment when the directory exists
// and nothing would remove it (a launcher killed between its own mkdtemp and this fork left one
// behind). After a normal end there is nothing left, and finish() closes the pipe and reaps it. It
// leads a session of its own, so that a signal to the launcher's process group does not end it
// first.
class LeftoverCleaner {
 public:
  explicit LeftoverCleaner(const std::string& job) {
    int ends[2], named[2];
    if (pipe2(ends, O_CLOEXEC) != 0)
      throw Error(ErrorCode::Internal, std::string("pipe failed: ") + std::strerror(errno));
    if (pipe2(named, O_CLOEXEC) != 0) {
      const int error = errno;
      for (int fd : ends) close(fd);
      throw Error(ErrorCode::Internal, std::string("pipe failed: ") + std::strerror(error));
    }
    pid_ = fork();
    if (pid_ < 0) {
      const int error = errno;
      for (int fd : {ends[0], ends[1], named[0], named[1]}) close(fd);
      throw Error(ErrorCode::Internal, std::string("fork failed: ") + std::strerror(error));
    }
    if (pid_ == 0) cleanAfter(job, ends, named);
    close(ends[0]);
    close(named[1]);
    writeEnd_ = ends[1];
    // '+' and the directory's name, or '-' and why it could not be made; nothing if it died.
    std::string report;
    char chunk[256];
    for (ssize_t n; (n = read(named[0], chunk, sizeof chunk)) != 0;) {
      if (n > 0)
        report.append(chunk, static_cast<std::size_t>(n));
      else if (errno != EINTR)
        break;
    }
    close(named[0]);
    if (report.size() < 2 || report[0] != '+') {
      finish();
      throw Error(report.empty() ? ErrorCode::Internal : ErrorCode::Transport,
                  report.empty() ? "the process that cleans up after the launcher ended at once"
                                 : report.substr(1));
    }
    directory_ = report.substr(1);
  }
  LeftoverCleaner(const LeftoverCleaner&) = delete;
  LeftoverCleaner& operator=(const LeftoverCleaner&) = delete;
  ~LeftoverCleaner() { finish(); }

  // The rendezvous directory it made.
  const std::string& directory() const { return directory_; }

  void finish() {
    if (writeEnd_ < 0) return;
    close(writeEnd_);
    writeEnd_ = -1;
    waitpid(pid_, nullptr, 0);
  }

 private:
  // The cleaner's side: make the directory, say its name, wait for the launcher's end, clean up.
  [[noreturn]] static void cleanAfter(const std::string& job, const int ends[2],
                                      const int named[2]) {
    setsid();
    // A launcher killed before it read the name leaves no reader: the write must fail, not kill
    // the one process that can still remove the directory.
    signal(SIGPIPE, SIG_IGN);
    close(ends[1]);
    close(named[0]);
    std::string directory, report;
    try {
      directory = temporaryDirectory(job);
      report = "+" + directory;
    } catch (const Error& e) {
      report = std::string("-") + e.what();
    }
    for (std::size_t at = 0; at < report.size();) {
      const ssize_t n = write(named[1], report.data() + at, report.size() - at);
      if (n > 0)
        at += static_cast<std::size_t>(n);
      else if (errno != EINTR)
        break;
    }
    close(named[1]);
    const int null = open("/dev/null", O_RDWR);
    for (int fd : {0, 1, 2}) dup2(null, fd);  // holds no reader's pipe open after the launcher
    char byte;
    while (read(ends[0], &byte, 1) < 0 && errno == EINTR) {
    }
    removeSharedMemoryNames(job);
    std::error_code ignored;
    if (!directory.empty()) std::filesystem::remove_all(directory, ignored);
    _exit(0);
  }

  pid_t pid_ = -1;
  int writeEnd_ = -1;
  std::string directory_;
};

pid_t startRank(const LaunchConfig& config, int rank, const std::string& rendezvous,
                const std::string& token, const std::string& job, const sigset_t& original) {
  const pid_t launcher = getpid();
  const pid_t pid = fork();
  if (pid < 0)
    throw Error(ErrorCode::Internal, std::string("fork failed: ") + std::strerror(errno));
  if (pid > 0) {
    setpgid(pid, pid);  // also here, so that no signal to the group can come before the child's
    return pid;
  }
  // Child: lead a process group of its own (what the rank starts is signalled with it), die with
  // the launcher, take back the signals the launcher blocked or ignored, become rank `rank`.
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != launcher) _exit(1);
  signal(SIGPIPE, SIG_DFL);
  sigprocmask(SIG_SETMASK, &original, nullptr);
  setenv("RINGLAB_RANK", std::to_string(rank).c_str(), 1);
  setenv("RINGLAB_WORLD_SIZE", std::to_string(config.ranks).c_str(), 1);
  setenv("RINGLAB_RENDEZVOUS", rendezvous.c_str(), 1);
  setenv("RINGLAB_TOKEN", token.c_str(), 1);
  setenv("RINGLAB_JOB", job.c_str(), 1);
  std::vector<char*> argv;
  for (const std::string& arg : config.command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  std::fprintf(stderr, "ringlab launch: cannot run %s: %s\n", argv[0], std::strerror(errno));
  _exit(127);
}

int statusCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::string describeStatus(int status) {
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") + strsignal(WTERMSIG(status));
  return "exited with status " + std::to_string(statusCode(status));
}

// Waits, at most `limit`, until no process is left in any of the ranks' groups. SIGKILL is
// delivered asynchronously: without this wait, a rank's grandchild could still be running when the
// launcher has exited. The launcher is the ranks' subreaper, so the orphans it reaps here are
// those grandchildren; bounded, because a process stuck in the kernel cannot be waited out.
void awaitGroupsEnded(const std::vector<pid_t>& groups, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    bool left = false;
    for (pid_t group : groups) left = left || (group > 0 && kill(-group, 0) == 0);
    if (!left || std::chrono::steady_clock::now() >= until) return;
    usleep(1000);
  }
}

}  // namespace

namespace {
std::string& rememberedProgram() {
  static std::string program = "ringlab";
  return program;
}
std::vector<std::string>& rememberedArguments() {
  static std::vector<std::string> arguments;
  return arguments;
}
}  // namespace

void rememberCommandLine(int argc, char** argv) {
  if (argc > 0) rememberedProgram() = argv[0];
  rememberedArguments().assign(argv + (argc > 0 ? 1 : 0), argv + argc);
}

std::vector<std::string> typedCommand() {
  std::vector<std::string> command{rememberedProgram()};
  command.insert(command.end(), rememberedArguments().begin(), rememberedArguments().end());
  return command;
}

std::vector<std::string> selfCommand() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error)
    throw Error(ErrorCode::Internal, "cannot find this program's path: " + error.message());
  std::vector<std::string> command{self.string()};
  command.insert(command.end(), rememberedArguments().begin(), rememberedArguments().end());
  return command;
}

int launch(const LaunchConfig& config) {
  if (config.ranks < 1)
    throwInvalid("the launch's ranks " + std::to_string(config.ranks) + ": need at least 1");
  if (config.command.empty()) throwInvalid("the launch's command is empty: nothing to run");
  const std::string token = environmentOrRandom("RINGLAB_TOKEN", 16);
  const std::string job = environmentOrRandom("RINGLAB_JOB", 6);
  LeftoverCleaner cleaner(job);
  const std::string directory = cleaner.directory();

  // A reader of the launcher's output that exits (`ringlab launch ... | head`) must not kill it
  // before it has stopped the ranks and cleaned up: its writes then fail with EPIPE instead.
  struct sigaction ignore = {};
  struct sigaction previousPipe = {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previousPipe);
  // Signals are taken synchronously (sigtimedwait), so nothing runs in a handler.
  sigset_t watched, original;
  sigemptyset(&watched);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&watched, s);
  sigprocmask(SIG_BLOCK, &watched, &original);
  // A rank's children whose parent dies come to this process, not to init, so that the end can
  // wait for them (awaitGroupsEnded).
  int wasSubreaper = 0;
  prctl(PR_GET_CHILD_SUBREAPER, &wasSubreaper);
  prctl(PR_SET_CHILD_SUBREAPER, 1);

  std::vector<pid_t> pids(config.ranks, 0);
  std::vector<bool> running(config.ranks, false);
  int alive = 0;
  // The job's status is the first failing rank's, by when it failed, not by when it was reaped.
  int result = 0;
  auto firstFailureAt = std::chrono::steady_clock::time_point::min();
  bool signalledCause = false;    // result is a death by a signal
  bool killedByLauncher = false;  // from here on, deaths by a signal are the launcher's doing
  bool interrupted = false;
  auto deadline = std::chrono::steady_clock::time_point::max();
  // Each rank's whole process group: a rank run through `sh -c` without exec is a shell whose
  // child does the work. A stopped process keeps SIGTERM pending until continued.
  const auto signalAll = [&](int sig) {
    killedByLauncher = true;
    for (int r = 0; r < config.ranks; ++r) {
      if (!running[r]) continue;
      kill(-pids[r], sig);
      if (sig == SIGTERM) kill(-pids[r], SIGCONT);
    }
  };
  try {
    for (int r = 0; r < config.ranks; ++r) {
      pids[r] = startRank(config, r, "file://" + directory, token, job, original);
      running[r] = true;
      ++alive;
    }
  } catch (...) {
    signalAll(SIGKILL);
    result = 1;
    deadline = std::chrono::steady_clock::now();
  }
  while (alive > 0) {
    timespec slice{0, 100'000'000};
    const int sig = sigtimedwait(&watched, nullptr, &slice);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
      if (!interrupted)
        std::fprintf(stderr, "ringlab launch: %s: stopping %d rank(s)\n", strsignal(sig), alive);
      interrupted = true;
      signalAll(SIGTERM);
      deadline = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(2));
    }
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      for (int r = 0; r < config.ranks; ++r) {
        if (!running[r] || pids[r] != pid) continue;
        running[r] = false;
        --alive;
        if (statusCode(status) == 0 || interrupted) continue;
        // A rank killed by a signal is usually the cause; the first failure starts the grace.
        if (WIFSIGNALED(status) || result == 0) {
          std::fprintf(stderr, "ringlab launch: rank %d %s\n", r, describeStatus(status).c_str());
        }
        if (WIFSIGNALED(status) && !killedByLauncher && result != 0 && !signalledCause &&
            std::chrono::steady_clock::now() - firstFailureAt <= kReactionWindow) {
          // The rank reaped first exited on its own just before: a reaction to this death.
          result = statusCode(status);
          signalledCause = true;
        }
        if (result == 0) {
          result = statusCode(status);
          firstFailureAt = std::chrono::steady_clock::now();
          signalledCause = WIFSIGNALED(status);
          // Survivors may wait their whole timeout to notice: the grace outlasts it.
          const auto grace = std::max(
              config.grace, bootstrap::longestDeclaredTimeout(directory) + kGraceBeyondTimeout);
          if (alive > 0) {
            std::fprintf(stderr, "ringlab launch: the other %d rank(s) have %lld ms to stop\n",
                         alive, static_cast<long long>(grace.count()));
          }
          deadline = std::min(deadline, std::chrono::steady_clock::now() + grace);
        }
      }
    }
    // A stopped rank cannot stop on its own: once the job has failed and only stopped ranks
    // remain, the grace has nothing left to wait for.
    bool onlyStopped = result != 0 && alive > 0;
    for (int r = 0; onlyStopped && r < config.ranks; ++r) {
      onlyStopped = !running[r] || isProcessStopped(pids[r]);
    }
    if (onlyStopped) deadline = std::chrono::steady_clock::now();
    if (alive > 0 && std::chrono::steady_clock::now() >= deadline) {
      std::fprintf(stderr, "ringlab launch: killing %d rank(s) that did not stop\n", alive);
      signalAll(SIGKILL);
      deadline = std::chrono::steady_clock::time_point::max();
    }
  }
  // What a rank left running in its group (a shell's child, a background job) ends with it.
  for (int r = 0; r < config.ranks; ++r) {
    if (pids[r] > 0) kill(-pids[r], SIGKILL);
  }
  awaitGroupsEnded(pids, kGroupEndLimit);
  prctl(PR_SET_CHILD_SUBREAPER, wasSubreaper);
  sigprocmask(SIG_SETMASK, &original, nullptr);
  sigaction(SIGPIPE, &previousPipe, nullptr);
  removeSharedMemoryNames(job);
  std::error_code ignored;
  std::filesystem::remove_all(directory, ignored);
  cleaner.finish();
  return interrupted ? 130 : result;
}

}  // namespace ringlab::job
