#pragma once
#include <string_view>
#include <vector>

namespace ringlab {

// avg is defined as NCCL defines ncclAvg for integers: the sum over all ranks, divided once by
// the number of ranks at the end (integer division truncates toward zero). ringlab applies the
// same post-division to floating types too (NCCL instead pre-multiplies floating inputs by 1/p,
// which can differ in the last bit); the result is then the correctly rounded quotient of the
// computed sum, bitwise identical on every rank.
// premul_sum is NCCL's premultiplied sum (ncclRedOpCreatePreMulSum; torch's PREMUL_SUM): each
// rank's input is multiplied by a factor as it enters the sum, so the result has the bits of
// scaling every input first and summing after, without a pass of its own. Its factor travels
// beside it (Reduction in reduce.hpp), so it is no name a user picks from a list.
enum class ReduceOp { Sum, Prod, Min, Max, Avg, PreMulSum };

// The ops a name alone chooses (premul_sum also needs its factor).
inline constexpr ReduceOp kAllReduceOps[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min,
                                             ReduceOp::Max, ReduceOp::Avg};

// Every op's name, premul_sum's included.
const char* reduceOpName(ReduceOp op);
// Throws InvalidArgument naming the value and the valid ops.
ReduceOp parseReduceOp(std::string_view name);

// One name as parseReduceOp, or "all": every op in the order nccl-tests' `-o all` runs them (its
// common.cu test_ops: sum prod max min avg; its premultiplied sum, which needs a factor, is not
// among them here).
std::vector<ReduceOp> parseReduceOps(std::string_view nameOrAll);

}  // namespace ringlab
