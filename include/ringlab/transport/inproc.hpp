#pragma once
// In-process transport: every rank is a thread of one process. A send and its receive are matched
// under a per-pair lock, and whichever of the two is posted second copies the bytes once, straight
// from the sender's buffer into the receiver's. Waiting spins briefly, then sleeps on a futex, so
// p larger than the core count still makes progress.
#include <memory>
#include <string>
#include <vector>

#include "ringlab/transport/thread_world.hpp"

namespace ringlab::transport {

class InprocWorld : public ThreadWorld {
 public:
  explicit InprocWorld(int ranks);
  ~InprocWorld() override;
  InprocWorld(const InprocWorld&) = delete;
  InprocWorld& operator=(const InprocWorld&) = delete;

  int size() const override;
  Transport& transport(int rank) override;
  // Makes every pending and future wait on every rank throw PeerLost with `reason`. Called when
  // one rank fails so that the others stop instead of waiting for it until their timeout.
  void abort(const std::string& reason) override;

  struct Shared;

 private:
  std::unique_ptr<Shared> shared_;
};

}  // namespace ringlab::transport
