#pragma once
// MPI transport: under `mpirun`, every process is one rank; rank and size come from
// MPI_COMM_WORLD, and bytes move with MPI_Isend/MPI_Irecv on a private duplicate of it, so
// ringlab's messages never match the program's own. This is the path to a real cluster: MPI
// brings the launcher, the host list and the fabric (shared memory, TCP, InfiniBand ...).
//
// MPI messages have no room for a header, so the transport adds one only where it pays for
// itself: the first message to each peer in a call carries the caller's CallStamp (48 bytes,
// plus tag and byte count) and, when small, the data too, in one MPI message. Ranks that disagree
// on the call therefore fail with Mismatch naming both calls, at the cost of 64 bytes per peer per
// call. An abort travels to every peer on a second private communicator, so every rank that is
// still waiting fails with the cause instead of timing out.
//
// The library is built once per MPI implementation found at configure time (ringlab_mpi_openmpi,
// ringlab_mpi_mpich); a program links exactly one. A ringlab built without MPI links a fallback
// whose functions throw InvalidArgument saying so. See docs/MPI.md.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce_op.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::transport {

struct MpiOptions {
  // Check that every rank makes the same call (the CallStamp header, see above). Off only to
  // measure what the check costs; ranks that disagree then hang or combine garbage.
  bool checkCallStamps = true;
};

// Initialises MPI if the program has not (and then finalises it at exit), and returns the
// transport of this process's rank. Collective: every rank of MPI_COMM_WORLD calls it.
std::unique_ptr<Transport> connectMpi(const MpiOptions& options = {});

// True when this ringlab was built against an MPI library.
bool mpiAvailable();

// Which MPI it was built against: "openmpi", "mpich", or "" for none. Known without starting
// MPI, so a program can check it matches the launcher before it initialises anything.
std::string mpiImplementation();

// The MPI library's own description of itself, first line (e.g. "Open MPI v4.1.4, ...").
std::string mpiLibraryVersion();

// MPI's own MPI_Allreduce over MPI_COMM_WORLD (a private duplicate), for side-by-side comparison
// with ringlab: same buffers, same conventions (send == recv means in place; avg is the sum
// divided once by p, integers truncating, as ringlab defines it). float16 and bfloat16 throw
// InvalidArgument: MPI defines no such types (MPICH's MPIX_C_FLOAT16 aborts in MPICH 4.0).
// Collective: every rank calls it with the same count, type and op. Initialises MPI if needed.
void mpiAllreduce(const void* send, void* recv, std::uint64_t count, DataType type, ReduceOp op);

}  // namespace ringlab::transport
