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

// MPI's text for an error code.
std::string errorString(int rc);

// Throws Error(code, "<what>: <MPI's text>") unless rc is MPI_SUCCESS.
void check(int rc, ErrorCode code, const std::string& what);

// Called when a wait failed in a way that may leave a peer unresponsive (timeout, lost peer).
// MPI_Finalize waits for every rank, so the exit handler then skips it rather than hang, and the
// launcher (which sees a rank leave without finalising) tears the job down.
void notePeerMayBeStuck();

// A private duplicate of MPI_COMM_WORLD for mpiAllreduce, created on first use (collectively)
// and freed before MPI_Finalize.
MPI_Comm collectiveComm();

}  // namespace ringlab::transport::mpi_detail
