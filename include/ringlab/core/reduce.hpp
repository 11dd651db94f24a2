#pragma once
// Element-wise reduction kernels, vectorised (an AVX2 build is chosen at run time where the CPU
// has it). Integer sum and prod wrap modulo 2^bits (two's complement), never undefined behaviour.
// float16 and bfloat16 are widened to float, reduced, and rounded back once per call.
#include <cstddef>
#include <cstdint>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce_op.hpp"

namespace ringlab {

// out[i] = a[i] op b[i] for i < count; out may alias a or b. For ReduceOp::Avg this is the sum:
// the division happens once, at the end, in divideBy.
void reduce(DataType type, ReduceOp op, void* out, const void* a, const void* b, std::size_t count);

// data[i] = data[i] / divisor (integers truncate toward zero); avg's final step.
void divideBy(DataType type, void* data, std::size_t count, std::uint64_t divisor);

// memcpy for the data path (transports, executor): non-overlapping buffers. It avoids glibc's
// `rep movsb` path, which some virtual machines run at a fraction of memory bandwidth.
void copyBytes(void* dst, const void* src, std::size_t bytes);

// Which kernel build runs on this CPU: "avx2" or "generic".
const char* reduceKernelIsa();

}  // namespace ringlab
