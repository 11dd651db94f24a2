#pragma once
// Shared-memory transport: ranks are processes (or threads) on one host. Each rank maps one
// POSIX shared-memory segment holding, for every peer that sends to it, a ring of fixed-size
// slots; a sender copies into a free slot and publishes it with a flag, the receiver combines
// straight out of the slot (one copy on the send side, one reduction pass on the receive side).
// Waiting spins briefly, then sleeps on a futex in the segment. Segments are created once per
// transport and unlinked as soon as every rank has mapped them, so a rank that dies leaves no
// names behind.
#include <chrono>
#include <memory>
#include <string>

#include "ringlab/bootstrap/store.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::transport {

struct ShmOptions {
  std::string job;  // names the segments /ringlab-<job>-<rank>; empty: rank 0 draws one
  std::chrono::milliseconds timeout{60'000};  // for setting up (all ranks mapping)
};

// Collective over the `size` ranks: each calls it with its rank and the same store.
std::unique_ptr<Transport> connectShm(int rank, int size, bootstrap::Store& store,
                                      const ShmOptions& options);

}  // namespace ringlab::transport
