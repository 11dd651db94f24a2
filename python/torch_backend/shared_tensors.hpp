#pragma once
// CPU tensors whose storage is a process group's shared memory (ringlab.torch.empty): over shm,
// the group's peers read them in place, so an AllReduce of one goes single copy from
// Transport::singleCopyBytes up, where an ordinary tensor is copied through the slots twice.
#include <ATen/ATen.h>

#include <memory>
#include <vector>

#include "shared_memory_pool.hpp"

namespace ringlab::torch_backend {

// An uninitialised tensor of shape `sizes` and dtype `type` (one ringlab reduces) in `pool`'s
// memory, which it keeps alive; an ordinary tensor where the pool's transport has no shared
// memory (tcp) or the tensor has no elements. Throws (c10::Error) naming a negative size or an
// unsupported dtype.
at::Tensor emptyShared(const std::shared_ptr<SharedMemoryPool>& pool,
                       const std::vector<std::int64_t>& sizes, at::ScalarType type);

// Moves the storage under `tensor` (a dense CPU tensor) into `pool`'s memory where it is not there
// yet: its bytes are copied once and the storage itself is pointed at the copy, so every tensor
// over that storage (DDP's bucket and its views, gradients that are views of it) reads and writes
// the shared memory from then on, and the old memory is freed. Returns whether the storage lies in
// the pool afterwards: false where the pool's transport has no shared memory (tcp) or the storage
// is empty. No other thread may use the storage meanwhile.
bool moveToSharedMemory(const std::shared_ptr<SharedMemoryPool>& pool, const at::Tensor& tensor);

}  // namespace ringlab::torch_backend
