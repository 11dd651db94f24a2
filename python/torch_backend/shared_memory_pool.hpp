#pragma once
// The memory behind a group's shared tensors (ringlab.torch.empty): memory the group's peers read
// in place, so that large collectives on it go single copy over shm (docs/transports.md). The
// transport hands out few such buffers (Transport::allocateShared: 16 per rank over shm, kept
// until the transport goes), so tensors are carved out of a few regions instead of taking one
// buffer each, and a freed tensor's bytes go back to the pool for the next one. Each new region is
// at least as large as all before it together, so the regions double and 16 of them reach tens of
// GiB. The pool holds the transport: its regions stay mapped while any tensor in them lives, even
// after the process group is gone.
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ringlab/transport/transport.hpp"

namespace ringlab::torch_backend {

class SharedMemoryPool {
 public:
  explicit SharedMemoryPool(std::shared_ptr<transport::Transport> transport)
      : transport_(std::move(transport)) {}
  SharedMemoryPool(const SharedMemoryPool&) = delete;
  SharedMemoryPool& operator=(const SharedMemoryPool&) = delete;

  // `bytes` (> 0) of uninitialised memory aligned for every dtype, or null where the transport
  // has no shared memory (tcp): use ordinary memory then. Throws what allocateShared throws.
  // Any thread may allocate and release.
  std::byte* allocate(std::size_t bytes);
  // Gives back what allocate(bytes) returned.
  void release(std::byte* data, std::size_t bytes);
  // Whether `data` lies in one of the pool's regions (allocated from it or not).
  bool holds(const void* data);

 private:
  struct Region {
    std::byte* base;
    std::size_t bytes;
    std::map<std::size_t, std::size_t> free;  // offset -> bytes, merged with free neighbours
  };
  // The first free block of `region` that holds `bytes` (rounded), split off; null if none does.
  static std::byte* take(Region& region, std::size_t bytes);
  // The region that `data` lies in, or regions_.end(); the caller holds mutex_.
  std::vector<Region>::iterator regionHolding(const void* data);

  std::shared_ptr<transport::Transport> transport_;
  std::mutex mutex_;
  std::vector<Region> regions_;
  std::size_t regionBytes_ = 0;  // all regions together
  bool transportHasNone_ = false;
};

}  // namespace ringlab::torch_backend
