#include "shared_tensors.hpp"

#include <c10/util/Exception.h>

#include "tensors.hpp"

namespace ringlab::torch_backend {

at::Tensor emptyShared(const std::shared_ptr<SharedMemoryPool>& pool,
                       const std::vector<std::int64_t>& sizes, at::ScalarType type) {
  ringlabType(type, "empty");
  for (const std::int64_t size : sizes) {
    TORCH_CHECK(size >= 0, "ringlab: empty: size ", size, " in shape ", at::IntArrayRef(sizes),
                " is negative; sizes must be at least 0");
  }
  const at::TensorOptions options = at::TensorOptions().dtype(type).device(at::kCPU);
  const std::size_t bytes =
      static_cast<std::size_t>(c10::multiply_integers(sizes)) * c10::elementSize(type);
  std::byte* data = bytes == 0 ? nullptr : pool->allocate(bytes);
  if (!data) return at::empty(sizes, options);
  return at::from_blob(
      data, sizes, [pool, bytes](void* p) { pool->release(static_cast<std::byte*>(p), bytes); },
      options);
}

}  // namespace ringlab::torch_backend
