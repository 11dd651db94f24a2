#pragma once
// This process as one rank of a job: its transport, from the rank environment (a launcher or
// torchrun-style variables: bootstrap/rendezvous.hpp) for shm and tcp, or from MPI under mpirun.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/bootstrap/rendezvous.hpp"
#include "ringlab/job/launch_environment.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::job {

struct RankWorld {
  std::unique_ptr<bootstrap::Store> store;  // kept open while the transport lives
  std::unique_ptr<transport::Transport> transport;
};

// chooseTransport (launch_environment.hpp) for this process: its environment, and the MPI this
// program links.
std::string chooseTransport(const std::optional<std::string>& given, std::string_view command,
                            const std::vector<std::string>& available);

// Connects this process. For shm and tcp the rank environment must be set; throws
// InvalidArgument otherwise, saying how to launch.
RankWorld connectRankWorld(const std::string& kind, std::chrono::milliseconds timeout);

// How this process takes part in a run over `kind`, the same for every command that measures:
//   Threads   inproc: all p ranks are threads of this process;
//   Launcher  shm or tcp without the rank environment: start p copies of this command
//   (launcher.hpp); Rank      shm or tcp under a launcher (or torchrun's variables), mpi under
//   mpirun: one rank of
//             the job, connected, with p taken from the job.
struct Participation {
  enum class Role { Threads, Launcher, Rank };
  Role role = Role::Threads;
  int ranks = 0;    // p: as asked, or the job's size for a Rank
  RankWorld world;  // Rank only
};

// Throws InvalidArgument for an unknown transport, or when `ranksGiven` and the job has another
// size than `ranks` ("-p 4 but this job has 2 ranks (from RINGLAB_WORLD_SIZE)").
Participation participate(const std::string& kind, int ranks, bool ranksGiven,
                          std::chrono::milliseconds timeout);

// One rank speaks for the job: on the others, stdout goes to /dev/null (errors still reach
// stderr). Returns whether this process is the one that speaks.
bool speaksForTheJob(const Participation& participation);

}  // namespace ringlab::job
