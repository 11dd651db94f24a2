#include "ringlab/job/rank_world.hpp"

#include <cstdio>
#include <string_view>
#include <vector>

#include "exec/attribution.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/job/launcher.hpp"
#include "ringlab/transport/mpi.hpp"

namespace ringlab::job {
namespace {

bool isMpiLauncher(Launcher launcher) {
  return launcher == Launcher::OpenMpi || launcher == Launcher::Pmi || launcher == Launcher::Pmix;
}

// MPI started without a launcher runs as a singleton, a job of one rank: the run would measure no
// transfer at all and still print a table. A launcher ringlab does not know is trusted as long as
// its job has more than one rank. `launcher` is read before MPI_Init, which sets Open MPI's
// variables in a singleton too.
void refuseMpiSingleton(const TransportEntry& entry, Launcher launcher,
                        const transport::Transport& mpi, int ranks) {
  if (mpi.size() > 1 || isMpiLauncher(launcher)) return;
  throwInvalid("the " + entry.name +
               " transport without an MPI launcher: this process is a job of 1 rank, alone; "
               "start the ranks with " +
               entry.launchLine(ranks, typedCommand()));
}

}  // namespace

RankWorld connectRankWorld(const TransportEntry& entry, std::chrono::milliseconds timeout) {
  RankWorld world;
  // Setting up keeps the survey window of a collective's deadline free too: a rank that fails
  // here has told the ranks already through by the time they give up on it in their first call.
  const auto now = exec::Clock::now();
  const auto setup =
      std::chrono::ceil<std::chrono::milliseconds>(exec::callDeadline(now, timeout).waits - now);
  switch (entry.start) {
    case RankStart::Threads:
      throwInvalid("transport " + entry.name + ": its ranks are " + entry.ranksAre +
                   ", not one process of a job");
    case RankStart::Mpi:
      world.transport = entry.connect({.timeout = setup});
      return world;
    case RankStart::Launched:
      break;
  }
  const std::optional<bootstrap::RankEnvironment> env = bootstrap::rankEnvironmentFromEnv();
  if (!env) {
    throwInvalid("transport " + entry.name +
                 " needs the rank environment (RINGLAB_RANK, RINGLAB_WORLD_SIZE, "
                 "RINGLAB_RENDEZVOUS); start the ranks with `ringlab launch -p N -- ...` or set "
                 "them as torchrun does");
  }
  world.store = bootstrap::openStore(*env, setup);
  bootstrap::declareTimeout(*world.store, env->rank, timeout);
  world.transport = entry.connect({.rank = env->rank,
                                   .size = env->size,
                                   .store = world.store.get(),
                                   .job = env->job,
                                   .token = env->token,
                                   .bindHost = env->bindHost,
                                   .timeout = setup});
  return world;
}

RankWorld connectThisRank(const std::optional<std::string>& transport, std::string_view command,
                          std::string_view label, std::chrono::milliseconds timeout) {
  std::vector<std::string> processes;
  for (const TransportEntry& t : transports()) {
    if (t.start != RankStart::Threads) processes.push_back(t.name);
  }
  const std::string chosen =
      chooseTransport(transport, detectLaunchEnvironment(), transport::mpiImplementation(), command,
                      processes, label);
  return connectRankWorld(findTransport(chosen, label), timeout);
}

Participation join(const JobRequest& request) {
  Participation part;
  part.transport = &findTransport(
      chooseTransport(request.transport, detectLaunchEnvironment(), transport::mpiImplementation(),
                      request.command, transportNameList(), request.transportLabel),
      request.transportLabel);
  const TransportEntry& entry = *part.transport;
  part.ranks = request.ranks;
  if (entry.start == RankStart::Threads) return part;
  if (entry.start == RankStart::Launched && !bootstrap::rankEnvironmentFromEnv()) {
    part.role = Participation::Role::Launcher;
    return part;
  }
  part.role = Participation::Role::Rank;
  const Launcher launcher = detectLaunchEnvironment().launcher;
  part.world = connectRankWorld(entry, request.timeout);
  if (entry.start == RankStart::Mpi)
    refuseMpiSingleton(entry, launcher, *part.world.transport, request.ranks);
  // A rank takes p from its launcher or MPI; a -p that says otherwise is an error.
  part.ranks = part.world.transport->size();
  if (request.ranksGiven && request.ranks != part.ranks) {
    throwInvalid(std::string(request.ranksLabel) + " " + std::to_string(request.ranks) +
                 " but this job has " + std::to_string(part.ranks) + " ranks (from " +
                 (entry.start == RankStart::Mpi ? "mpirun" : "RINGLAB_WORLD_SIZE") + ")");
  }
  return part;
}

int launchCopies(const Participation& part, std::chrono::milliseconds timeout) {
  // The copies get a little longer than one collective's deadline to report a failure.
  return launch({part.ranks, selfCommand(), timeout + std::chrono::seconds(5)});
}

bool speaksForTheJob(const Participation& part) {
  if (part.role != Participation::Role::Rank || part.world.transport->rank() == 0) return true;
  if (!std::freopen("/dev/null", "w", stdout)) {
    throw Error(ErrorCode::Internal,
                "cannot silence stdout of rank " + std::to_string(part.world.transport->rank()));
  }
  return false;
}

}  // namespace ringlab::job
