#include "tensors.hpp"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <string>

namespace ringlab::torch_backend {

void checkDenseCpu(const at::Tensor& tensor, const char* what) {
  TORCH_CHECK(tensor.device().is_cpu() && tensor.layout() == at::kStrided, "ringlab: ", what,
              ": tensor on ", tensor.device(), " with layout ", tensor.layout(),
              "; the ringlab backend takes dense CPU tensors");
}

std::optional<DataType> ringlabHas(at::ScalarType type) {
  switch (type) {
    case at::kChar:
      return DataType::Int8;
    case at::kByte:
      return DataType::Uint8;
    case at::kInt:
      return DataType::Int32;
    case at::kLong:
      return DataType::Int64;
    case at::kHalf:
      return DataType::Float16;
    case at::kBFloat16:
      return DataType::Bfloat16;
    case at::kFloat:
      return DataType::Float32;
    case at::kDouble:
      return DataType::Float64;
    default:
      return std::nullopt;
  }
}

DataType ringlabType(at::ScalarType type, const char* what) {
  const std::optional<DataType> found = ringlabHas(type);
  TORCH_CHECK(found, "ringlab: ", what, ": dtype ", type,
              " is not supported; valid are int8, uint8, int32, int64, float16, bfloat16, "
              "float32, float64");
  return *found;
}

DataType ringlabType(const at::Tensor& tensor, const char* what) {
  checkDenseCpu(tensor, what);
  return ringlabType(tensor.scalar_type(), what);
}

ReduceOp ringlabOp(const c10d::ReduceOp& op, const char* what) {
  switch (op.op_) {
    case c10d::ReduceOp::SUM:
      return ReduceOp::Sum;
    case c10d::ReduceOp::AVG:
      return ReduceOp::Avg;
    case c10d::ReduceOp::PRODUCT:
      return ReduceOp::Prod;
    case c10d::ReduceOp::MIN:
      return ReduceOp::Min;
    case c10d::ReduceOp::MAX:
      return ReduceOp::Max;
    default:
      break;
  }
  TORCH_CHECK(false, "ringlab: ", what, ": reduce op ", static_cast<int>(op.op_),
              " is not supported; valid are SUM, AVG, PRODUCT, MIN, MAX");
}

const at::Tensor& onlyTensor(const std::vector<at::Tensor>& tensors, const char* what) {
  TORCH_CHECK(tensors.size() == 1, "ringlab: ", what, ": ", tensors.size(),
              " tensors given; the ringlab backend takes one tensor per process");
  return tensors.front();
}

void checkShape(const at::Tensor& tensor, at::ScalarType type, std::int64_t numel,
                const char* what) {
  TORCH_CHECK(tensor.scalar_type() == type && tensor.numel() == numel, "ringlab: ", what,
              ": a tensor of ", tensor.numel(), " x ", tensor.scalar_type(), " where ", numel,
              " x ", type, " is needed");
}

void checkSameShape(const std::vector<at::Tensor>& tensors, const at::Tensor& like,
                    const char* what) {
  for (const at::Tensor& t : tensors) checkShape(t, like.scalar_type(), like.numel(), what);
}

void checkRank(int rank, int size, const char* what, const char* role) {
  TORCH_CHECK(rank >= 0 && rank < size, "ringlab: ", what, ": ", role, " ", rank,
              " is not in this group of ", size, " ranks; valid are 0 to ", size - 1);
}

at::Tensor asBytes(const at::Tensor& tensor) {
  return at::from_blob(tensor.data_ptr(), {static_cast<std::int64_t>(tensor.nbytes())},
                       at::TensorOptions().dtype(at::kByte));
}

void withContiguous(at::Tensor& tensor, const std::function<void(at::Tensor&)>& body) {
  if (tensor.is_contiguous()) {
    body(tensor);
    return;
  }
  at::Tensor flat = tensor.contiguous();
  body(flat);
  tensor.copy_(flat);
}

}  // namespace ringlab::torch_backend
