#pragma once
// Shared-memory transport: ranks are processes (or threads) on one host. Each rank maps one
// POSIX shared-memory segment holding, for every peer that sends to it, a ring of fixed-size
// slots; a sender copies into a free slot and publishes it with a flag, the receiver combines
// straight out of the slot (one copy on the send side, one reduction pass on the receive side).
// Large messages whose bytes the receiver can read where they lie skip the slot: the receiver
// combines straight from the sender's buffer (single copy; docs/transports.md).
// Waiting spins briefly, then sleeps on a futex in the segment. Segments are created once per
// transport and unlinked as soon as every rank has mapped them, so a rank that dies leaves no
// names behind.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "ringlab/bootstrap/store.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::transport {

// Messages of at least this many bytes go single-copy where the receiver can read the sender's
// memory (ranks that are threads of one process; buffers from allocateShared between processes):
// the receiver reduces or copies straight from the sender's buffer. Smaller ones are copied
// through the slots, which costs less below it (docs/transports.md has the measurement).
inline constexpr std::uint64_t kDefaultSingleCopyBytes = 128 * 1024;
inline constexpr std::uint64_t kSingleCopyOff = UINT64_MAX;

// In collectives whose vector is at least this many bytes, a single-copy reduce out of place
// writes its destination with streaming stores, saving the read-for-ownership of lines no cache
// holds (a single-copy copy from twice this size, since it may be in place); below it the data
// stays in cache, where plain stores win (docs/transports.md, "Streaming stores above the
// caches", and docs/BENCHMARKS.md have the measurements).
inline constexpr std::uint64_t kDefaultStreamingBytes = 32 * 1024 * 1024;

struct ShmOptions {
  std::string job;  // names the segments /ringlab-<job>-<rank>; empty: rank 0 draws one
  std::chrono::milliseconds timeout{60'000};  // for setting up (all ranks mapping)
  // The environment variable RINGLAB_SHM_SINGLE_COPY (a size, or "off") overrides it.
  std::uint64_t singleCopyBytes = kDefaultSingleCopyBytes;
  // The environment variable RINGLAB_SHM_STREAMING (a size, or "off") overrides it.
  std::uint64_t streamingBytes = kDefaultStreamingBytes;
};

// Collective over the `size` ranks: each calls it with its rank and the same store.
std::unique_ptr<Transport> connectShm(int rank, int size, bootstrap::Store& store,
                                      const ShmOptions& options);

}  // namespace ringlab::transport
