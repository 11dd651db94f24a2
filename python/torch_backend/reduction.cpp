#include "reduction.hpp"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include "tensors.hpp"

namespace ringlab::torch_backend {
namespace {

bool bitwise(c10d::ReduceOp::RedOpType op) {
  return op == c10d::ReduceOp::BAND || op == c10d::ReduceOp::BOR || op == c10d::ReduceOp::BXOR;
}

// On bool, gloo's arithmetic is logic: a sum is an or, a product an and, min and max likewise.
c10d::ReduceOp::RedOpType onBool(c10d::ReduceOp::RedOpType op) {
  switch (op) {
    case c10d::ReduceOp::SUM:
    case c10d::ReduceOp::MAX:
      return c10d::ReduceOp::BOR;
    case c10d::ReduceOp::PRODUCT:
    case c10d::ReduceOp::MIN:
      return c10d::ReduceOp::BAND;
    default:
      return op;
  }
}

at::Tensor combine(const at::Tensor& a, const at::Tensor& b, c10d::ReduceOp::RedOpType op) {
  switch (op) {
    case c10d::ReduceOp::SUM:
      return a + b;
    case c10d::ReduceOp::PRODUCT:
      return a * b;
    case c10d::ReduceOp::MIN:
      return at::minimum(a, b);
    case c10d::ReduceOp::MAX:
      return at::maximum(a, b);
    case c10d::ReduceOp::BAND:
      return at::bitwise_and(a, b);
    case c10d::ReduceOp::BOR:
      return at::bitwise_or(a, b);
    default:
      return at::bitwise_xor(a, b);
  }
}

}  // namespace

Reduction reductionFor(const at::Tensor& tensor, const c10d::ReduceOp& op, const char* what) {
  checkDenseCpu(tensor, what);
  Reduction reduction;
  reduction.torchOp = op.op_;
  const bool isBool = tensor.scalar_type() == at::kBool;
  if (!isBool && !bitwise(op.op_)) {
    TORCH_CHECK(ringlabHas(tensor.scalar_type()), "ringlab: ", what, ": dtype ",
                tensor.scalar_type(),
                " is not supported; valid are bool, int8, uint8, int32, int64, float16, "
                "bfloat16, float32, float64");
    reduction.type = ringlabType(tensor, what);
    reduction.op = ringlabOp(op, what);
    return reduction;
  }
  TORCH_CHECK(isBool || at::isIntegralType(tensor.scalar_type(), /*includeBool=*/false),
              "ringlab: ", what, ": a bitwise reduce op on ", tensor.scalar_type(),
              "; BAND, BOR and BXOR take integer or bool tensors");
  TORCH_CHECK(bitwise(op.op_) || onBool(op.op_) != op.op_, "ringlab: ", what, ": reduce op ",
              static_cast<int>(op.op_),
              " on bool; valid on bool are SUM, PRODUCT, MIN, MAX, BAND, BOR, BXOR");
  reduction.folded = true;
  if (isBool) reduction.torchOp = onBool(op.op_);
  return reduction;
}

Reduction allreduceReductionFor(const at::Tensor& tensor, const c10d::ReduceOp& op,
                                const char* what) {
  if (op.op_ != c10d::ReduceOp::PREMUL_SUM) return reductionFor(tensor, op, what);
  checkDenseCpu(tensor, what);
  TORCH_CHECK(at::isFloatingType(tensor.scalar_type()), "ringlab: ", what, ": PREMUL_SUM on ",
              tensor.scalar_type(),
              "; its factor multiplies float16, bfloat16, float32 and float64 tensors");
  const auto* supplement = dynamic_cast<const c10d::NCCLPreMulSumSupplement*>(op.supplement_.get());
  TORCH_CHECK(supplement && supplement->tensor_factors.empty(), "ringlab: ", what,
              ": PREMUL_SUM with a tensor factor; give the factor as a float "
              "(torch.distributed._make_nccl_premul_sum(factor))");
  Reduction reduction;
  reduction.torchOp = op.op_;
  reduction.type = ringlabType(tensor, what);
  reduction.op = ReduceOp::PreMulSum;
  reduction.factor = supplement->double_factor;
  return reduction;
}

at::Tensor foldRows(const at::Tensor& rows, c10d::ReduceOp::RedOpType op) {
  at::Tensor result = rows[0].clone();
  for (std::int64_t r = 1; r < rows.size(0); ++r) result = combine(result, rows[r], op);
  return result;
}

}  // namespace ringlab::torch_backend
