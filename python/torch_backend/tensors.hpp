#pragma once
// What the backend accepts from torch: dense CPU tensors of the dtypes ringlab reduces, and the
// reduce ops it has. Checked on the caller's thread, so that a bad call raises at once with a
// one-line message naming the value and what is valid.
#include <torch/csrc/distributed/c10d/Types.hpp>

#include <functional>
#include <optional>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce_op.hpp"

namespace ringlab::torch_backend {

// Throws (c10::Error, a RuntimeError in Python) unless `tensor` is a dense CPU tensor.
void checkDenseCpu(const at::Tensor& tensor, const char* what);
// ringlab's name for `type`, if ringlab reduces it.
std::optional<DataType> ringlabHas(at::ScalarType type);
// ringlab's name for `type`; throws unless ringlab reduces it.
DataType ringlabType(at::ScalarType type, const char* what);
// checkDenseCpu, and the tensor's dtype must be one ringlab reduces.
DataType ringlabType(const at::Tensor& tensor, const char* what);
ReduceOp ringlabOp(const c10d::ReduceOp& op, const char* what);

// Exactly one tensor per process, as c10d's CPU backends take them.
const at::Tensor& onlyTensor(const std::vector<at::Tensor>& tensors, const char* what);
// `tensor` has dtype `type` and `numel` elements.
void checkShape(const at::Tensor& tensor, at::ScalarType type, std::int64_t numel,
                const char* what);
// Every tensor of `tensors` has the dtype and element count of `like`.
void checkSameShape(const std::vector<at::Tensor>& tensors, const at::Tensor& like,
                    const char* what);

// Throws unless 0 <= rank < size: `role` names the rank ("root rank", "destination rank").
void checkRank(int rank, int size, const char* what, const char* role);
// The bytes of `tensor` (contiguous) as a flat uint8 tensor over the same memory.
at::Tensor asBytes(const at::Tensor& tensor);

// Runs `body` on `tensor`'s elements laid out contiguously, copying back when `tensor` is not
// contiguous (a view with strides): ringlab's collectives take flat buffers.
void withContiguous(at::Tensor& tensor, const std::function<void(at::Tensor&)>& body);

}  // namespace ringlab::torch_backend
