#pragma once
// Starts p local ranks of a command and looks after them: each child gets the rank environment
// (bootstrap/rendezvous.hpp: RINGLAB_RANK, RINGLAB_WORLD_SIZE, RINGLAB_RENDEZVOUS, RINGLAB_TOKEN,
// RINGLAB_JOB), a rendezvous directory private to the job, a token (RINGLAB_TOKEN's value if
// set, else a random one) and a job id (RINGLAB_JOB's value if set, else a random one). When a rank
// fails, the others get `grace` to notice and exit on their own, then are killed; Ctrl-C (SIGINT)
// or SIGTERM is passed on to them. Whatever happens, the job's shared-memory names and rendezvous
// directory are removed before launch() returns.
#include <chrono>
#include <string>
#include <vector>

namespace ringlab::job {

struct LaunchConfig {
  int ranks = 2;
  std::vector<std::string> command;  // command[0] is run as execvp runs it
  std::chrono::milliseconds grace{10'000};
};

// Returns the job's exit status: 0 when every rank exited 0, else the first failing rank's
// status (128 + signal for a rank killed by a signal), 130 after Ctrl-C.
int launch(const LaunchConfig& config);

// main() records its arguments; selfCommand() is this program's path followed by them, for
// launching copies of itself with the same options.
void rememberCommandLine(int argc, char** argv);
std::vector<std::string> selfCommand();
// The command line as it was typed (argv[0] as given), for messages that say how to run it again.
std::vector<std::string> typedCommand();

}  // namespace ringlab::job
