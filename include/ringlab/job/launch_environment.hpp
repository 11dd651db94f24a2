#pragma once
// Which launcher started this process, from the variables launchers set, and so which transport a
// command that measures runs on when none was given: under `mpirun -np 4` that is one
// job of four ranks, never four separate runs.
//
//   Open MPI's mpirun          OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_RANK          -> mpi
//   MPICH's mpiexec (Hydra),   PMI_SIZE, PMI_RANK                                  -> mpi
//   another PMI launcher
//   a PMIx launcher            PMIX_RANK                                           -> mpi
//   torchrun                   TORCHELASTIC_RUN_ID, RANK, WORLD_SIZE, LOCAL_RANK   -> tcp
//   ringlab launch             RINGLAB_RANK                       -> shm or tcp: the user says
//
// mpi only where this ringlab's MPI transport is built for that launcher's MPI; otherwise, and
// for ringlab's own variables, the choice fails with a message that names the choice to add.
// MASTER_ADDR and MASTER_PORT alone do not count: they are job-wide and often exported in shells.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab::job {

enum class Launcher { None, Ringlab, OpenMpi, Pmi, Pmix, Torchrun };

struct LaunchEnvironment {
  Launcher launcher = Launcher::None;
  std::string evidence;     // the variable that shows it, as NAME=VALUE
  bool rankKnown = false;   // the rank and the job's size are set (torchrun: RANK, WORLD_SIZE)
  int ranksOnThisHost = 0;  // as the launcher says (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS,
                            // LOCAL_WORLD_SIZE); 0 when it does not
};

// `lookup` is getenv's shape (a test passes its own).
using EnvironmentLookup = std::function<const char*(const char*)>;
LaunchEnvironment detectLaunchEnvironment(const EnvironmentLookup& lookup);
LaunchEnvironment detectLaunchEnvironment();  // this process's environment

// The launcher in words, for messages: "Open MPI's mpirun".
std::string launcherName(Launcher launcher);

// The transport a command that measures runs on (a name in the transport table, transports.hpp):
// `given` when there is one (checked against the table); else the launcher's (RankStart::Mpi where
// `mpiBuiltFor`, "openmpi", "mpich" or "" for none, matches it; the table's first launched
// transport that spans hosts for torchrun); else the table's transport of threads. `available`
// lists the transports the command has; a launcher's transport outside it is refused too.
// `option` is how the front end names the choice ("--transport"): a message says what to add.
// Throws InvalidArgument naming the variable that shows the launcher and the choice to add.
std::string chooseTransport(const std::optional<std::string>& given, const LaunchEnvironment& env,
                            std::string_view mpiBuiltFor, std::string_view command,
                            const std::vector<std::string>& available, std::string_view option);

// How many of the job's `ranks` run on this host: all of them for a transport that does not span
// hosts, what the launcher says for one that does (0: unknown).
int ranksOnThisHost(const std::string& transport, int ranks, const LaunchEnvironment& env);

// The cores the job's ranks on this host may run on: for ranks as threads this process's
// CPU affinity; for ranks as processes, which a launcher may pin one per core, the host's online
// cores.
int usableCores(const std::string& transport);

}  // namespace ringlab::job
