#include "mpi_runtime.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace ringlab::transport::mpi_detail {
namespace {

constexpr std::chrono::seconds kFinaliseGrace{10};

std::mutex gMutex;
std::atomic<bool> gPeerMayBeStuck{false};
MPI_Comm gCollectiveComm = MPI_COMM_NULL;
bool gRinglabInitialised = false;

void finaliseAtExit() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised) return;
  // MPI_Finalize waits for every rank. After a timeout a peer may never get there: give it a
  // while (peers that failed alike are finalising too), then leave without it, non-zero, and let
  // the launcher tear the job down.
  if (gPeerMayBeStuck.load()) {
    std::thread([] {
      std::this_thread::sleep_for(kFinaliseGrace);
      std::fprintf(stderr,
                   "ringlab: MPI_Finalize did not complete within %d s after a failed "
                   "wait (a peer is stuck or gone); exiting without it\n",
                   static_cast<int>(kFinaliseGrace.count()));
      std::_Exit(1);
    }).detach();
  }
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
      throwInvalid(
          "MPI was already finalised by this program; ringlab's MPI transport needs it "
          "running (connect before MPI_Finalize)");
    }
    return;
  }
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), ErrorCode::Transport,
        "MPI_Init_thread");
  gRinglabInitialised = true;
  // Nothing but ringlab uses MPI here, and ringlab checks every return code (see
  // WorldErrorsReturn).
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::atexit(finaliseAtExit);
}

WorldErrorsReturn::WorldErrorsReturn() {
  if (gRinglabInitialised) return;
  if (MPI_Comm_get_errhandler(MPI_COMM_WORLD, &saved_) != MPI_SUCCESS) return;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

WorldErrorsReturn::~WorldErrorsReturn() {
  if (saved_ == MPI_ERRHANDLER_NULL) return;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, saved_);
  MPI_Errhandler_free(&saved_);
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

void notePeerMayBeStuck() {
  gPeerMayBeStuck.store(true);
}

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
