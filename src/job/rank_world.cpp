#include "ringlab/job/rank_world.hpp"

#include <cstdio>
#include <string_view>

#include "exec/attribution.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/job/launcher.hpp"
#include "ringlab/transport/mpi.hpp"
#include "ringlab/transport/shm.hpp"
#include "ringlab/transport/tcp.hpp"

namespace ringlab::job {
namespace {

// The transports whose ranks the launcher can start as processes.
bool isLaunchable(const std::string& kind) {
  return kind == "shm" || kind == "tcp";
}

bool isMpiLauncher(Launcher launcher) {
  return launcher == Launcher::OpenMpi || launcher == Launcher::Pmi || launcher == Launcher::Pmix;
}

// A word as a shell reads it back: quoted where it holds anything but plain characters.
std::string shellWord(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-+=/.,:@%") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// This command as typed, started as `ranks` MPI processes by the launcher of the MPI it links.
std::string mpiLaunchLine(int ranks) {
  std::string line = transport::mpiImplementation() == "mpich" ? "mpiexec -n " : "mpirun -np ";
  line += std::to_string(ranks);
  for (const std::string& word : typedCommand()) line += " " + shellWord(word);
  return line;
}

// MPI started without a launcher runs as a singleton, a job of one rank: the run would measure no
// transfer at all and still print a table. A launcher ringlab does not know is trusted as long as
// its job has more than one rank. `launcher` is read before MPI_Init, which sets Open MPI's
// variables in a singleton too.
void refuseMpiSingleton(Launcher launcher, const transport::Transport& mpi, int ranks) {
  if (mpi.size() > 1 || isMpiLauncher(launcher)) return;
  throwInvalid(
      "the mpi transport without an MPI launcher: this process is a job of 1 rank, alone; "
      "start the ranks with " +
      mpiLaunchLine(ranks));
}

}  // namespace

std::string chooseTransport(const std::optional<std::string>& given, std::string_view command,
                            const std::vector<std::string>& available) {
  return chooseTransport(given, detectLaunchEnvironment(), transport::mpiImplementation(), command,
                         available);
}

RankWorld connectRankWorld(const std::string& kind, std::chrono::milliseconds timeout) {
  RankWorld world;
  // Setting up keeps the survey window of a collective's deadline free too: a rank that fails
  // here has told the ranks already through by the time they give up on it in their first call.
  const auto now = exec::Clock::now();
  const auto setup =
      std::chrono::ceil<std::chrono::milliseconds>(exec::callDeadline(now, timeout).waits - now);
  if (kind == "mpi") {
    world.transport = transport::connectMpi();
    return world;
  }
  const std::optional<bootstrap::RankEnvironment> env = bootstrap::rankEnvironmentFromEnv();
  if (!env) {
    throwInvalid(
        "--transport " + kind +
        " needs the rank environment (RINGLAB_RANK, RINGLAB_WORLD_SIZE, RINGLAB_RENDEZVOUS); "
        "start the ranks with `ringlab launch -p N -- ...` or set them as torchrun does");
  }
  world.store = bootstrap::openStore(*env, setup);
  bootstrap::declareTimeout(*world.store, env->rank, timeout);
  if (kind == "shm") {
    world.transport = transport::connectShm(env->rank, env->size, *world.store, {env->job, setup});
  } else if (kind == "tcp") {
    transport::TcpOptions options{env->bindHost, env->token, setup};
    transport::applyTcpEnvironment(options);
    world.transport = transport::connectTcp(env->rank, env->size, *world.store, options);
  } else {
    throwInvalid("--transport " + kind + ": valid are inproc, shm, tcp, mpi");
  }
  return world;
}

Participation participate(const std::string& kind, int ranks, bool ranksGiven,
                          std::chrono::milliseconds timeout) {
  checkTransportName(kind);
  Participation part;
  part.ranks = ranks;
  if (kind == "inproc") return part;
  if (isLaunchable(kind) && !bootstrap::rankEnvironmentFromEnv()) {
    part.role = Participation::Role::Launcher;
    return part;
  }
  part.role = Participation::Role::Rank;
  const Launcher launcher = detectLaunchEnvironment().launcher;
  part.world = connectRankWorld(kind, timeout);
  if (kind == "mpi") refuseMpiSingleton(launcher, *part.world.transport, ranks);
  // A rank takes p from its launcher or MPI; a -p that says otherwise is an error.
  part.ranks = part.world.transport->size();
  if (ranksGiven && ranks != part.ranks) {
    throwInvalid("-p " + std::to_string(ranks) + " but this job has " + std::to_string(part.ranks) +
                 " ranks (from " + (kind == "mpi" ? "mpirun" : "RINGLAB_WORLD_SIZE") + ")");
  }
  return part;
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
