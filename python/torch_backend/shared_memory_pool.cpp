#include "shared_memory_pool.hpp"

#include <algorithm>
#include <iterator>

namespace ringlab::torch_backend {
namespace {

// Every block starts on a cache line: aligned for every dtype and its vector kernels, and no two
// tensors share a line that two threads would write.
constexpr std::size_t kAlignment = 64;
// The first region: small enough that a process asking for a few small tensors does not hold
// much, large enough that it is not followed by many more.
constexpr std::size_t kFirstRegionBytes = 1 << 20;

std::size_t roundedUp(std::size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace

std::byte* SharedMemoryPool::take(Region& region, std::size_t bytes) {
  for (auto block = region.free.begin(); block != region.free.end(); ++block) {
    const auto [offset, size] = *block;
    if (size < bytes) continue;
    region.free.erase(block);
    if (size > bytes) region.free.emplace(offset + bytes, size - bytes);
    return region.base + offset;
  }
  return nullptr;
}

std::byte* SharedMemoryPool::allocate(std::size_t bytes) {
  const std::size_t rounded = roundedUp(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  for (Region& region : regions_) {
    if (std::byte* data = take(region, rounded)) return data;
  }
  if (transportHasNone_) return nullptr;
  const std::size_t regionBytes = std::max({rounded, kFirstRegionBytes, regionBytes_});
  auto* base = static_cast<std::byte*>(transport_->allocateShared(regionBytes));
  if (!base) {
    transportHasNone_ = true;
    return nullptr;
  }
  regions_.push_back({base, regionBytes, {{0, regionBytes}}});
  regionBytes_ += regionBytes;
  return take(regions_.back(), rounded);
}

std::vector<SharedMemoryPool::Region>::iterator SharedMemoryPool::regionHolding(const void* data) {
  const auto* byte = static_cast<const std::byte*>(data);
  return std::find_if(regions_.begin(), regions_.end(),
                      [&](const Region& r) { return byte >= r.base && byte < r.base + r.bytes; });
}

bool SharedMemoryPool::holds(const void* data) {
  std::lock_guard<std::mutex> lock(mutex_);
  return regionHolding(data) != regions_.end();
}

void SharedMemoryPool::release(std::byte* data, std::size_t bytes) {
  std::size_t size = roundedUp(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  const auto region = regionHolding(data);
  auto& free = region->free;
  const std::size_t offset = static_cast<std::size_t>(data - region->base);
  auto next = free.lower_bound(offset);
  if (next != free.end() && offset + size == next->first) {
    size += next->second;
    next = free.erase(next);
  }
  if (next != free.begin()) {
    const auto previous = std::prev(next);
    if (previous->first + previous->second == offset) {
      previous->second += size;
      return;
    }
  }
  free.emplace(offset, size);
}

}  // namespace ringlab::torch_backend
