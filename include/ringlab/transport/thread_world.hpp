#pragma once
// A job whose ranks are all threads of this process: each rank's transport, and the stop that
// ends every rank's waits when one rank fails (measure/rank_threads.hpp runs the threads). The
// in-process transport is one (inproc.hpp); the transport table (job/transports.hpp) makes one
// for every transport whose ranks start as threads.
#include <string>

#include "ringlab/transport/transport.hpp"

namespace ringlab::transport {

class ThreadWorld {
 public:
  virtual ~ThreadWorld() = default;
  virtual int size() const = 0;
  virtual Transport& transport(int rank) = 0;
  // Makes every pending and future wait on every rank throw PeerLost with `reason`.
  virtual void abort(const std::string& reason) = 0;
};

}  // namespace ringlab::transport
