#include "ringlab/job/launch_environment.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "ringlab/core/enum_names.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/job/transports.hpp"

namespace ringlab::job {
namespace {

struct Found {
  const char* name = nullptr;
  std::string value;
};

// The first of `names` that is set.
std::optional<Found> firstSet(const EnvironmentLookup& lookup,
                              std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (const char* value = lookup(name)) return Found{name, value};
  }
  return std::nullopt;
}

// A positive count from the first of `names` that holds one, else 0.
int countFrom(const EnvironmentLookup& lookup, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* value = lookup(name);
    if (!value) continue;
    char* end = nullptr;
    const long n = std::strtol(value, &end, 10);
    if (end != value && *end == '\0' && n > 0 && n <= (1 << 24)) return static_cast<int>(n);
  }
  return 0;
}

LaunchEnvironment found(Launcher launcher, const Found& f) {
  LaunchEnvironment env;
  env.launcher = launcher;
  env.evidence = std::string(f.name) + "=" + f.value;
  env.rankKnown = true;
  return env;
}

// The MPI a launcher's ranks initialise through: "openmpi" or "mpich".
std::string_view mpiOf(Launcher launcher) {
  return launcher == Launcher::Pmi ? "mpich" : "openmpi";
}

std::string mpiLauncherFor(std::string_view mpi) {
  return mpi == "mpich" ? "MPICH's mpiexec" : "Open MPI's mpirun";
}

std::string mpiName(std::string_view mpi) {
  return mpi == "mpich" ? "MPICH" : "Open MPI";
}

// The first entry of the table that `accepts`; "" when none does.
template <typename Accepts>
std::string firstTransport(const Accepts& accepts) {
  for (const TransportEntry& t : transports()) {
    if (accepts(t)) return t.name;
  }
  return "";
}

// The launcher's transport, or throws saying which transport to choose (`option`: how the front
// end names that choice: the CLI its transport option). `threads`: the command's transport
// of threads, offered to run separately in each process; "" where the command has none.
std::string launcherTransport(const LaunchEnvironment& env, std::string_view mpiBuiltFor,
                              std::string_view command, std::string_view option,
                              const std::string& threads) {
  const std::string under = "under " + launcherName(env.launcher) + " (" + env.evidence + ")";
  const std::string choose = std::string(option) + " ";
  const std::string separate = threads.empty() ? ""
                                               : "add " + choose + threads + " to run a separate " +
                                                     std::string(command) + " in each process";
  // `message` and, where the command has one, the separate run as the other way out.
  const auto orSeparate = [&](const std::string& message) {
    return separate.empty() ? message : message + ", or " + separate;
  };
  const std::string launched =
      firstTransport([](auto& t) { return t.start == RankStart::Launched && t.spansHosts; });
  switch (env.launcher) {
    case Launcher::Ringlab: {
      std::string choices;
      for (const TransportEntry& t : transports()) {
        if (t.start != RankStart::Launched) continue;
        choices += (choices.empty() ? "" : " or ") + choose + t.name + " (" + t.ranksAre + ")";
      }
      throwInvalid(orSeparate(under + ": add " + choices));
    }
    case Launcher::Torchrun:
      if (!env.rankKnown) {
        throwInvalid(orSeparate(under +
                                ", but RANK and WORLD_SIZE are not both set: set them (with "
                                "MASTER_ADDR and MASTER_PORT) for " +
                                choose + launched));
      }
      return launched;
    default:
      break;
  }
  const std::string mpi = firstTransport([](auto& t) { return t.start == RankStart::Mpi; });
  const std::string_view wanted = mpiOf(env.launcher);
  if (mpiBuiltFor == wanted) return mpi;
  if (mpiBuiltFor.empty()) {
    throwInvalid(orSeparate(under + ", but this ringlab was built without MPI (install lib" +
                            std::string(wanted == "mpich" ? "mpich" : "openmpi") +
                            "-dev and rebuild)"));
  }
  throwInvalid(orSeparate(under + ", but this ringlab's MPI transport is built for " +
                          mpiName(mpiBuiltFor) + ": start it with " + mpiLauncherFor(mpiBuiltFor) +
                          " (or add " + choose + mpi + " where this launcher starts " +
                          mpiName(mpiBuiltFor) + " programs)"));
}

}  // namespace

LaunchEnvironment detectLaunchEnvironment(const EnvironmentLookup& lookup) {
  // ringlab's own first (a rank `ringlab launch` started), then the MPI launchers (they set their
  // variables per process), then torchrun's generic names.
  LaunchEnvironment env;
  if (auto f = firstSet(lookup, {"RINGLAB_RANK"})) {
    env = found(Launcher::Ringlab, *f);
  } else if (auto f = firstSet(lookup, {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"})) {
    env = found(Launcher::OpenMpi, *f);
    env.ranksOnThisHost = countFrom(lookup, {"OMPI_COMM_WORLD_LOCAL_SIZE"});
  } else if (auto f = firstSet(lookup, {"PMI_SIZE", "PMI_RANK"})) {
    env = found(Launcher::Pmi, *f);
    env.ranksOnThisHost = countFrom(lookup, {"MPI_LOCALNRANKS"});
  } else if (auto f = firstSet(lookup, {"PMIX_RANK"})) {
    env = found(Launcher::Pmix, *f);
  } else if (auto f =
                 firstSet(lookup, {"TORCHELASTIC_RUN_ID", "RANK", "WORLD_SIZE", "LOCAL_RANK"})) {
    env = found(Launcher::Torchrun, *f);
    env.rankKnown = lookup("RANK") && lookup("WORLD_SIZE");
    env.ranksOnThisHost = countFrom(lookup, {"LOCAL_WORLD_SIZE"});
  }
  return env;
}

LaunchEnvironment detectLaunchEnvironment() {
  return detectLaunchEnvironment([](const char* name) { return std::getenv(name); });
}

namespace {

constexpr EnumName<Launcher> kLauncherNames[] = {
    {Launcher::None, "no launcher"},
    {Launcher::Ringlab, "ringlab launch"},
    {Launcher::OpenMpi, "Open MPI's mpirun"},
    {Launcher::Pmi, "MPICH's mpiexec or another PMI launcher"},
    {Launcher::Pmix, "a PMIx launcher"},
    {Launcher::Torchrun, "torchrun"}};

}  // namespace

std::string launcherName(Launcher launcher) {
  return std::string(enumName(std::span(kLauncherNames), launcher));
}

std::string chooseTransport(const std::optional<std::string>& given, const LaunchEnvironment& env,
                            std::string_view mpiBuiltFor, std::string_view command,
                            const std::vector<std::string>& available, std::string_view option) {
  if (given) return findTransport(*given, option).name;
  const std::string threads = firstTransport([&](const TransportEntry& t) {
    return t.start == RankStart::Threads &&
           std::find(available.begin(), available.end(), t.name) != available.end();
  });
  if (env.launcher == Launcher::None) {
    if (!threads.empty()) return threads;
    std::string names;
    for (const std::string& t : available) names += (names.empty() ? "" : ", ") + t;
    throwInvalid(std::string(option) + ": none given, and no launcher started this process: name " +
                 "one of " + names);
  }
  const bool processes = std::any_of(available.begin(), available.end(), [](const std::string& t) {
    return findTransport(t).start != RankStart::Threads;
  });
  if (!processes) {
    throwInvalid("under " + launcherName(env.launcher) + " (" + env.evidence + "), but " +
                 std::string(command) +
                 " runs its ranks as threads of one process, so each process would measure "
                 "alone: run it without the launcher, or add " +
                 std::string(option) + " " + threads + " to do so anyway");
  }
  const std::string transport = launcherTransport(env, mpiBuiltFor, command, option, threads);
  if (std::find(available.begin(), available.end(), transport) == available.end()) {
    throwInvalid("under " + launcherName(env.launcher) + " (" + env.evidence +
                 "), whose ranks take " + std::string(option) + " " + transport + ", which " +
                 std::string(command) + " does not have: add the " + std::string(option) +
                 " it should use");
  }
  return transport;
}

int ranksOnThisHost(const std::string& transport, int ranks, const LaunchEnvironment& env) {
  return findTransport(transport).spansHosts ? env.ranksOnThisHost : ranks;
}

int usableCores(const std::string& transport) {
  // Ranks as processes: a launcher may pin each one to its own core (Open MPI binds to cores for
  // np <= 2), so this process's affinity is only its share; the host's online cores are the
  // ranks' together.
  if (findTransport(transport).start != RankStart::Threads)
    return std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace ringlab::job
