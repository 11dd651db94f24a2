// The MPI functions of a ringlab configured where no MPI library was found: same names, so that
// the CLI links either way, and a message that says how to get the real ones.
#include "ringlab/core/error.hpp"
#include "ringlab/transport/mpi.hpp"

namespace ringlab::transport {
namespace {

[[noreturn]] void noMpi() {
  throwInvalid("this ringlab was built without MPI (install libopenmpi-dev and rebuild)");
}

}  // namespace

std::unique_ptr<Transport> connectMpi(const MpiOptions&) {
  noMpi();
}

bool mpiAvailable() {
  return false;
}

std::string mpiImplementation() {
  return "";
}

std::string mpiLibraryVersion() {
  noMpi();
}

void mpiAllreduce(const void*, void*, std::uint64_t, DataType, ReduceOp) {
  noMpi();
}

}  // namespace ringlab::transport
