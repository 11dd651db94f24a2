// MPI's own AllReduce, for the side-by-side comparison, and the library's version string.
#include <algorithm>
#include <climits>
#include <string>

#include "mpi_runtime.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/transport/mpi.hpp"

namespace ringlab::transport {
namespace {

using namespace mpi_detail;

MPI_Datatype mpiType(DataType type) {
  switch (type) {
    case DataType::Int8:
      return MPI_INT8_T;
    case DataType::Uint8:
      return MPI_UINT8_T;
    case DataType::Int32:
      return MPI_INT32_T;
    case DataType::Uint32:
      return MPI_UINT32_T;
    case DataType::Int64:
      return MPI_INT64_T;
    case DataType::Uint64:
      return MPI_UINT64_T;
    case DataType::Float32:
      return MPI_FLOAT;
    case DataType::Float64:
      return MPI_DOUBLE;
    case DataType::Float16:
    case DataType::Bfloat16:
      // MPI defines no 16-bit floating type. MPICH declares MPIX_C_FLOAT16, but Debian's MPICH
      // 4.0 aborts the process inside MPI_Allreduce with it (a failed assertion in its packing
      // engine, not an error code), so it is not offered.
      break;
  }
  throwInvalid(std::string(dataTypeName(type)) + ": MPI has no 16-bit floating type that " +
               mpiLibraryVersion() +
               " reduces reliably, so MPI_Allreduce cannot be timed with it; compare with "
               "float32 instead");
}

// avg: MPI has no such op; ringlab's avg is the sum divided once at the end (see reduce_op.hpp).
MPI_Op mpiOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return MPI_SUM;
    case ReduceOp::Prod:
      return MPI_PROD;
    case ReduceOp::Min:
      return MPI_MIN;
    case ReduceOp::Max:
      return MPI_MAX;
    case ReduceOp::Avg:
      return MPI_SUM;
    case ReduceOp::PreMulSum:
      throwInvalid("premul_sum: MPI has no premultiplied sum; run it on ringlab's own schedules");
  }
  throwInvalid("reduce op " + std::to_string(static_cast<int>(op)) + " is not one ringlab knows");
}

}  // namespace

std::string mpiLibraryVersion() {
  // MPI_Get_library_version may be called before MPI_Init (MPI-3).
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "unknown MPI";
  std::string version(text, static_cast<std::size_t>(std::max(0, length)));
  version = version.substr(0, version.find('\n'));
  while (!version.empty() && (version.back() == ',' || version.back() == ' ' ||
                              version.back() == '\0' || version.back() == '\r')) {
    version.pop_back();
  }
  return version;
}

void mpiAllreduce(const void* send, void* recv, std::uint64_t count, DataType type, ReduceOp op) {
  const MPI_Datatype mpiDataType = mpiType(type);
  const MPI_Op mpiReduceOp = mpiOp(op);
  const MPI_Comm comm = collectiveComm();
  const std::size_t elementSize = dataTypeSize(type);
  const bool inPlace = send == recv;
  // MPI counts are int: longer vectors go as several calls over consecutive ranges, which
  // reduces every element exactly as one call would.
  constexpr std::uint64_t kMaxCount = INT_MAX;
  for (std::uint64_t done = 0; done < count; done += kMaxCount) {
    const int n = static_cast<int>(std::min(kMaxCount, count - done));
    const std::size_t offset = done * elementSize;
    void* out = static_cast<std::byte*>(recv) + offset;
    const void* in = inPlace ? MPI_IN_PLACE : static_cast<const std::byte*>(send) + offset;
    const int rc = MPI_Allreduce(in, out, n, mpiDataType, mpiReduceOp, comm);
    if (rc != MPI_SUCCESS) {
      throw Error(ErrorCode::Transport, "MPI_Allreduce of " + std::to_string(count) + " x " +
                                            dataTypeName(type) + ", " + reduceOpName(op) +
                                            " failed: " + errorString(rc));
    }
  }
  if (op == ReduceOp::Avg && count) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    divideBy(type, recv, count, static_cast<std::uint64_t>(size));
  }
}

}  // namespace ringlab::transport
