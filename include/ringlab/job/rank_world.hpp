#pragma once
// This process as one rank of a job: its transport, from the transport table (transports.hpp),
// connected from the rank environment (a launcher or torchrun-style variables:
// bootstrap/rendezvous.hpp) or by MPI under mpirun. join() is the one way in for every command
// that measures.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/bootstrap/rendezvous.hpp"
#include "ringlab/job/launch_environment.hpp"
#include "ringlab/job/transports.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::job {

struct RankWorld {
  std::unique_ptr<bootstrap::Store> store;  // kept open while the transport lives
  std::unique_ptr<transport::Transport> transport;
};

// Connects this process as one rank over `entry` (RankStart::Launched or Mpi). For Launched the
// rank environment must be set; throws InvalidArgument otherwise, saying how to launch.
RankWorld connectRankWorld(const TransportEntry& entry, std::chrono::milliseconds timeout);

// This process as one rank of its job, for a program whose ranks are always processes (Python's
// connect): over `transport` when given, else the one the launcher's ranks take; `command` and
// `label` (how the program names the transport) word the refusals.
RankWorld connectThisRank(const std::optional<std::string>& transport, std::string_view command,
                          std::string_view label, std::chrono::milliseconds timeout);

// What a command that measures asks of the job it runs in. The labels are how the front end
// names these inputs, for its messages ("--transport", "-p" on the command line).
struct JobRequest {
  std::optional<std::string> transport;  // as given; none: the launcher's, else threads
  std::string_view command;              // "bench", for messages
  int ranks = 2;
  bool ranksGiven = false;  // else a rank takes p from its job
  std::chrono::milliseconds timeout{60'000};
  std::string_view transportLabel = "the transport";
  std::string_view ranksLabel = "p";
};

// How this process takes part in a run:
//   Threads   all p ranks are threads of this process (the transport's world);
//   Launcher  a transport whose ranks are launched processes, without the rank environment:
//             start p copies of this command (launchCopies);
//   Rank      under a launcher (or torchrun's variables), or mpirun: one rank of the job,
//             connected, with p taken from the job.
struct Participation {
  enum class Role { Threads, Launcher, Rank };
  const TransportEntry* transport = nullptr;
  Role role = Role::Threads;
  int ranks = 0;    // p: as asked, or the job's size for a Rank
  RankWorld world;  // Rank only
};

// The transport (given, else the launcher's: launch_environment.hpp's chooseTransport over the
// whole table and the MPI this program links), then this process's part in the job. Throws
// InvalidArgument for an unknown transport, or when `ranksGiven` and the job has another size
// ("-p 4 but this job has 2 ranks (from RINGLAB_WORLD_SIZE)").
Participation join(const JobRequest& request);

// The Launcher's part: runs p copies of this program with its command line, each a rank, and
// returns the job's exit status (launcher.hpp). `timeout` is the ranks' collective deadline.
int launchCopies(const Participation& participation, std::chrono::milliseconds timeout);

// One rank speaks for the job: on the others, stdout goes to /dev/null (errors still reach
// stderr). Returns whether this process is the one that speaks.
bool speaksForTheJob(const Participation& participation);

}  // namespace ringlab::job
