#pragma once
// Runs the real `ringlab` binary (RINGLAB_BINARY) as a child process with its stdout and stderr
// captured, for the command-line tests of the subcommands. A child still running after
// `timeoutSeconds` is killed and reported with status 128 + SIGKILL. With `addressSpaceMiB`, the
// child runs under that RLIMIT_AS: an allocation past it fails (ringlab's "out of memory"), which
// proves a refusal happened before memory was filled.
//
// Header-only; functions are inline because several test binaries include it.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#ifndef RINGLAB_BINARY
#error "RINGLAB_BINARY must be defined as the path of the ringlab executable"
#endif

namespace ringlab::test {

struct CliResult {
  int status = -1;  // exit status, or 128 + signal
  std::string out, err;
};

inline std::string slurpFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

inline CliResult runRinglab(std::vector<std::string> args, int timeoutSeconds = 60,
                            unsigned addressSpaceMiB = 0) {
  static int serial = 0;
  const std::string base = ::testing::TempDir() + "ringlab_cli_" + std::to_string(getpid()) + "_" +
                           std::to_string(serial++);
  args.insert(args.begin(), RINGLAB_BINARY);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int in = open("/dev/null", O_RDONLY);
    const int out = open((base + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = open((base + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (addressSpaceMiB > 0) {
      const rlimit limit{rlim_t{addressSpaceMiB} << 20, rlim_t{addressSpaceMiB} << 20};
      setrlimit(RLIMIT_AS, &limit);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) != pid) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  CliResult r{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
              slurpFile(base + ".out"), slurpFile(base + ".err")};
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

// "a b  c" -> {"a", "b", "c"}: for tests that write a command line as one string.
inline std::vector<std::string> splitWords(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

}  // namespace ringlab::test
