#pragma once
#include <string_view>
#include <vector>

namespace ringlab {

// avg is defined as NCCL defines ncclAvg for integers: the sum over all ranks, divided once by
// the number of ranks at the end (integer division truncates toward zero). ringlab applies the
// same post-division to floating types too (NCCL instead pre-multiplies floating inputs by 1/p,
// which can differ in the last bit); the result is then the correctly rounded quotient of the
// computed sum, bitwise identical on every rank.
enum class ReduceOp { Sum, Prod, Min, Max, Avg };

inline constexpr ReduceOp kAllReduceOps[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min,
                                             ReduceOp::Max, ReduceOp::Avg};

const char* reduceOpName(ReduceOp op);
// Throws InvalidArgument naming the value and the valid ops.
ReduceOp parseReduceOp(std::string_view name);

// One name as parseReduceOp, or "all": every op in the order nccl-tests' `-o all` runs them (its
// common.cu test_ops: sum prod max min avg; its premultiplied sum has no counterpart here).
std::vector<ReduceOp> parseReduceOps(std::string_view nameOrAll);

}  // namespace ringlab
