#pragma once
// The transport moves byte ranges between ranks, nothing more: non-blocking send and receive,
// matched in posting order per (source, destination, tag) as in MPI, with completion tests and
// waits bounded by a timeout. Everything collective is built above it, in exec/.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ringlab::transport {

// A posted operation. Valid until wait() returns for it (wait releases it).
struct Request {
  std::uint32_t slot = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string name() const = 0;  // "inproc", ...

  // The buffer must stay valid and unchanged until the request completes. A send and the
  // receive it matches must have the same byte count, else both fail with Mismatch.
  virtual Request isend(int peer, const void* data, std::size_t bytes, std::uint32_t tag) = 0;
  virtual Request irecv(int peer, void* data, std::size_t bytes, std::uint32_t tag) = 0;

  // Blocks until the request completes and releases it. Throws Timeout after `timeout`,
  // PeerLost when the communicator was aborted, Mismatch on a size mismatch.
  virtual void wait(Request request, std::chrono::milliseconds timeout) = 0;
};

}  // namespace ringlab::transport
