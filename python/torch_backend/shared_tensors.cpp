#include "shared_tensors.hpp"

#include <c10/core/Allocator.h>
#include <c10/util/Exception.h>

#include <cstring>
#include <functional>

#include "tensors.hpp"

namespace ringlab::torch_backend {
namespace {

// What frees `bytes` of the pool's memory: handed back to the pool (which it keeps alive) for the
// next tensor, not to the system.
std::function<void(void*)> returnTo(const std::shared_ptr<SharedMemoryPool>& pool,
                                    std::size_t bytes) {
  return [pool, bytes](void* data) { pool->release(static_cast<std::byte*>(data), bytes); };
}

}  // namespace

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
  return at::from_blob(data, sizes, returnTo(pool, bytes), options);
}

bool moveToSharedMemory(const std::shared_ptr<SharedMemoryPool>& pool, const at::Tensor& tensor) {
  checkDenseCpu(tensor, "moving a tensor into shared memory");
  c10::StorageImpl& storage = *tensor.storage().unsafeGetStorageImpl();
  const std::size_t bytes = storage.nbytes();
  if (bytes == 0 || !storage.data()) return false;
  if (pool->holds(storage.data())) return true;
  std::byte* data = pool->allocate(bytes);
  if (!data) return false;
  std::memcpy(data, storage.data(), bytes);
  // The old memory goes with the DataPtr this replaces.
  storage.set_data_ptr_noswap(
      c10::InefficientStdFunctionContext::makeDataPtr(data, returnTo(pool, bytes), at::kCPU));
  return true;
}

}  // namespace ringlab::torch_backend
