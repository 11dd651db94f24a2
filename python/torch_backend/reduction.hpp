#pragma once
// How one reduction runs: on ringlab's kernels where they have the dtype and op, else (bool
// tensors, whatever the op; the bitwise ops BAND, BOR, BXOR on integers) by gathering every
// rank's input and folding it in rank order with torch's own operators, the reductions gloo
// offers on CPU. Every rank folds the same rows in the same order, so all get the same bits.
#include <torch/csrc/distributed/c10d/Types.hpp>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce_op.hpp"

namespace ringlab::torch_backend {

struct Reduction {
  bool folded = false;  // gathered and folded here; `type` and `op` are unset then
  DataType type{};
  ReduceOp op{};
  c10d::ReduceOp::RedOpType torchOp{};
  double factor = 1;  // PREMUL_SUM's (op is ReduceOp::PreMulSum)
};

// Checked on the caller's thread: throws (naming the dtype or op and what is valid) for a
// reduction neither ringlab nor the fold has, as gloo refuses a bitwise op on floats.
Reduction reductionFor(const at::Tensor& tensor, const c10d::ReduceOp& op, const char* what);
// reductionFor, and all_reduce's PREMUL_SUM with a float factor
// (`torch.distributed._make_nccl_premul_sum(factor)`), as NCCL takes it: ringlab's premultiplied
// sum, on floating tensors.
Reduction allreduceReductionFor(const at::Tensor& tensor, const c10d::ReduceOp& op,
                                const char* what);

// rows: every rank's input, one row each in rank order; returns their fold by `op`.
at::Tensor foldRows(const at::Tensor& rows, c10d::ReduceOp::RedOpType op);

}  // namespace ringlab::torch_backend
