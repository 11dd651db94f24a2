#pragma once
// Element-wise reduction kernels, vectorised (an AVX2 build is chosen at run time where the CPU
// has it). Integer sum and prod wrap modulo 2^bits (two's complement), never undefined behaviour.
// float16 and bfloat16 are widened to float, reduced, and rounded back once per call.
#include <cstddef>
#include <cstdint>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce_op.hpp"

namespace ringlab {

// For ReduceOp::PreMulSum: its factor, and which operands of one combining step are a rank's own
// input, not yet multiplied (the schedule decides: exec::RankPlan marks each receive). Such an
// operand x enters the sum as x * factor rounded to the element type, the bits of torch's
// `tensor.mul_(factor)`: the factor is first rounded to the element type (a 16-bit float's product
// is then taken in float and rounded back).
struct PreMultiply {
  double factor = 1;
  bool a = false;
  bool b = false;
};

// What one combining step computes.
struct Reduction {
  Reduction() = default;
  Reduction(DataType type, ReduceOp op, PreMultiply premultiply = {})
      : type(type), op(op), premultiply(premultiply) {}
  DataType type = DataType::Float32;
  ReduceOp op = ReduceOp::Sum;
  PreMultiply premultiply;  // read for ReduceOp::PreMulSum only
};

// out[i] = a[i] op b[i] for i < count; out may alias a or b. For ReduceOp::Avg this is the sum:
// the division happens once, at the end, in divideBy. PreMulSum takes floating types only.
void reduce(const Reduction& how, void* out, const void* a, const void* b, std::size_t count);

// data[i] = data[i] / divisor (integers truncate toward zero); avg's final step.
void divideBy(DataType type, void* data, std::size_t count, std::uint64_t divisor);

// data[i] = data[i] * factor, rounded as PreMultiply says: a premultiplied sum's input that no
// step combined (p = 1). Floating types only.
void multiplyBy(DataType type, void* data, std::size_t count, double factor);

// memcpy for the data path (transports, executor): non-overlapping buffers. It avoids glibc's
// `rep movsb` path, which some virtual machines run at a fraction of memory bandwidth.
void copyBytes(void* dst, const void* src, std::size_t bytes);

// Which kernel build runs on this CPU: "avx2" or "generic".
const char* reduceKernelIsa();

}  // namespace ringlab
