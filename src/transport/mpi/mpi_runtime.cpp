#include "mpi_runtime.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace ringlab::transport::mpi_detail {
namespace {

std::mutex gMutex;
std::atomic<bool> gPeerMayBeStuck{false};
MPI_Comm gCollectiveComm = MPI_COMM_NULL;

void finaliseAtExit() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised) return;
  // A peer that stopped answering would never reach MPI_Finalize, and Open MPI's finalise waits
  // for all of them: leave without it and let the launcher clean up.
  if (gPeerMayBeStuck.load()) return;
  if (gCollectiveComm != MPI_COMM_NULL) MPI_Comm_free(&gCollectiveComm);
  MPI_Finalize();
}

}  // namespace

void ensureInitialised() {
  std::lock_guard lock(gMutex);
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised) {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (finalised) {
      throwInvalid("MPI was already finalised by this program; ringlab's MPI transport needs it "
                   "running (connect before MPI_Finalize)");
    }
    return;
  }
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), ErrorCode::Transport,
        "MPI_Init_thread");
  std::atexit(finaliseAtExit);
}

std::string errorString(int rc) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(text, static_cast<std::size_t>(length));
}

void check(int rc, ErrorCode code, const std::string& what) {
  if (rc != MPI_SUCCESS) throw Error(code, what + " failed: " + errorString(rc));
}

void notePeerMayBeStuck() { gPeerMayBeStuck.store(true); }

MPI_Comm collectiveComm() {
  ensureInitialised();
  std::lock_guard lock(gMutex);
  if (gCollectiveComm == MPI_COMM_NULL) {
    check(MPI_Comm_dup(MPI_COMM_WORLD, &gCollectiveComm), ErrorCode::Transport,
          "MPI_Comm_dup of MPI_COMM_WORLD");
    // Errors come back as return codes and become ringlab errors, instead of MPI aborting.
    MPI_Comm_set_errhandler(gCollectiveComm, MPI_ERRORS_RETURN);
  }
  return gCollectiveComm;
}

}  // namespace ringlab::transport::mpi_detail
