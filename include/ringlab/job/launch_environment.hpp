#pragma once
// Which launcher started this process, from the variables launchers set, and so which transport a
// command that measures runs on when --transport was not given: under `mpirun -np 4` that is one
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
// for ringlab's own variables, the choice fails with a message that names the flag to add.
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

// Throws InvalidArgument naming `kind` and the valid ones unless it is inproc, shm, tcp or mpi.
void checkTransportName(const std::string& kind);

// The transport a command that measures runs on: `given` (--transport as typed) when there is
// one; else the launcher's (mpi where `mpiBuiltFor`, "openmpi", "mpich" or "" for none, matches
// it; tcp for torchrun); else "inproc". `available` lists the transports the command has; a
// launcher's transport outside it is refused too. Throws InvalidArgument naming the variable that
// shows the launcher and the flag to add.
std::string chooseTransport(const std::optional<std::string>& given, const LaunchEnvironment& env,
                            std::string_view mpiBuiltFor, std::string_view command,
                            const std::vector<std::string>& available);

// How many of the job's `ranks` run on this host: all of them for inproc and shm, what the
// launcher says for mpi and tcp (0: unknown).
int ranksOnThisHost(const std::string& transport, int ranks, const LaunchEnvironment& env);

// The cores the job's ranks on this host may run on: for ranks as threads (inproc) this process's
// CPU affinity; for ranks as processes, which a launcher may pin one per core, the host's online
// cores.
int usableCores(const std::string& transport);

}  // namespace ringlab::job
