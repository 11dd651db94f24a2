#pragma once
// What the MPI transport and mpiAllreduce share: initialising MPI once, finalising it at exit,
// and turning MPI return codes into ringlab errors. Internal to the ringlab_mpi_* libraries.
#include <mpi.h>

#include <string>

#include "ringlab/core/error.hpp"

namespace ringlab::transport::mpi_detail {

// Initialises MPI (MPI_THREAD_SERIALIZED: ringlab calls MPI from one thread at a time, not
// necessarily the main one) unless the program already has; if ringlab initialised it, MPI is
// finalised at exit. Throws InvalidArgument when MPI was already finalised.
void ensureInitialised();

// MPICH reports errors found by MPI_Test and MPI_Wait (a truncated message: ranks that disagree)
// through MPI_COMM_WORLD's error handler, not the request's communicator's, and that handler is
// fatal by default. Where ringlab initialised MPI it sets MPI_ERRORS_RETURN on MPI_COMM_WORLD
// once; where the program did, this guard sets it around a wait and restores the program's.
class WorldErrorsReturn {
 public:
  WorldErrorsReturn();
  ~WorldErrorsReturn();
  WorldErrorsReturn(const WorldErrorsReturn&) = delete;
  WorldErrorsReturn& operator=(const WorldErrorsReturn&) = delete;

 private:
  MPI_Errhandler saved_ = MPI_ERRHANDLER_NULL;
};

// MPI's text for an error code.
std::string errorString(int rc);

// Throws Error(code, "<what>: <MPI's text>") unless rc is MPI_SUCCESS.
void check(int rc, ErrorCode code, const std::string& what);

// Called when a wait failed in a way that may leave a peer unresponsive (timeout, lost peer).
// MPI_Finalize waits for every rank, so the exit handler then bounds it: if it has not returned
// after a grace period, the process leaves without it and the launcher tears the job down.
void notePeerMayBeStuck();

// A private duplicate of MPI_COMM_WORLD for mpiAllreduce, created on first use (collectively)
// and freed before MPI_Finalize.
MPI_Comm collectiveComm();

}  // namespace ringlab::transport::mpi_detail
