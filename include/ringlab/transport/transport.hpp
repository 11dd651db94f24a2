#pragma once
// The transport moves byte ranges between ranks, nothing more: non-blocking send and receive,
// matched in posting order per (source, destination) pair, with completion waits bounded by a
// timeout. Everything collective is built above it, in exec/.
//
// Contract every transport keeps (tests/transport_contract_test.cpp checks it on each one):
// - A rank posts its receives from a peer in the order that peer posted the matching sends
//   (the executor does: it walks the same schedule on every rank). The tags must agree, and the
//   byte counts must agree; otherwise both sides fail with ErrorCode::Mismatch.
// - Every message carries the sender's CallStamp (what collective it is part of). A receive whose
//   message carries a stamp different from the receiver's fails with Mismatch naming both, so
//   ranks that disagree on count, dtype, op or algorithm fail before any data is combined.
// - After abort(cause) on any rank, waits on every rank that can still be reached throw an Error
//   with cause's code and a message naming the rank that aborted and why.
// - A peer process that dies is reported as PeerLost naming it, or at worst as Timeout naming it,
//   within the wait's timeout.
// - After abort(), survey() tells which peers answered with an abort of their own (alive), which
//   are gone, and which stayed silent (stopped or hung), as far as the transport can know, and
//   where each peer that answered stood (its abort's WaitPoint).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/reduce.hpp"

namespace ringlab::transport {

// A posted operation. Valid until wait() returns for it (wait releases it).
struct Request {
  std::uint32_t slot = 0;
};

// What collective call a message belongs to. Plain bytes of a fixed size so that transports can
// put it in a frame or shared-memory header as it is.
struct CallStamp {
  std::uint64_t count = 0;      // elements of the collective (the full vector)
  std::uint32_t specHash = 0;   // hash of the full algorithm spec (ring order, channels, ...)
  std::uint8_t collective = 0;  // Collective (core/collective.hpp)
  std::uint8_t type = 0;        // DataType
  std::uint8_t op = 0;          // ReduceOp
  std::uint8_t reserved = 0;
  char algorithm[32] = {};  // algorithm name, NUL-padded, for messages

  bool operator==(const CallStamp& other) const;
  // FNV-1a over the stamp's bytes: equal stamps give equal digests, and different ones differ
  // but with odds of about 2^-64 (shm compares digests, tcp and inproc whole stamps).
  std::uint64_t digest() const;
  // "allreduce of 1000 x float32, sum, ring (spec 1a2b3c4d)"
  std::string describe() const;
};
static_assert(sizeof(CallStamp) == 48, "CallStamp travels as 48 raw bytes");

// The Mismatch error a receiver raises when a message's stamp differs from its own.
Error stampMismatch(int rank, const CallStamp& mine, int peer, const CallStamp& theirs);

// What is left until `deadline`, at least a millisecond (a wait with nothing left still takes
// what has already arrived).
std::chrono::milliseconds timeLeft(std::chrono::steady_clock::time_point deadline);

// What a rank that gave up learned of a peer (Transport::survey).
enum class PeerState : std::uint8_t {
  Unknown,   // the transport cannot tell
  Answered,  // it aborted too, or is running: alive, and not the one to blame
  Gone,      // its process exited or its connection closed without an abort
  Silent,    // stopped, or hung outside the transport: it did not answer
};

// Where a rank stood when it gave up: the receive it was waiting for, if any. Its abort carries
// this to every peer, so that all of them can see which rank waits at the earliest step, and
// blame the rank that rank waits for: one that stops sending leaves every other rank alive and
// answering, and only the positions tell it apart (exec/attribution.hpp).
struct WaitPoint {
  std::int32_t peer = -1;  // the rank whose message it waited to receive; -1: none (not waiting,
                           // or waiting for a send to be taken)
  std::uint32_t tag = 0;   // that receive's tag: the step (exec names its tags)
  // Which collective call, counted by the rank's Communicator from 1 (modulo 2^32): ranks can be
  // a call apart, where some finished a call that others are stuck in.
  std::uint32_t call = 0;
  bool operator==(const WaitPoint&) const = default;
};

// How a WaitPoint's peer travels between processes (tcp's abort frame, shm's segment): the peer
// + 1, so that zeroed bytes say "waiting for no receive". Inline: the network parsers' fuzz
// target builds without the library.
inline std::uint32_t encodeWaitingPeer(const WaitPoint& point) {
  return point.peer < 0 ? 0 : static_cast<std::uint32_t>(point.peer) + 1;
}
// The WaitPoint back from what a peer sent; nullopt when the peer it names is not a rank of a
// world of `size` (the sender then said nothing usable).
inline std::optional<WaitPoint> decodeWaitPoint(std::uint32_t encodedPeer, std::uint32_t tag,
                                                std::uint32_t call, int size) {
  if (encodedPeer > static_cast<std::uint32_t>(size)) return std::nullopt;
  if (encodedPeer == 0) return WaitPoint{-1, 0, call};
  return WaitPoint{static_cast<std::int32_t>(encodedPeer - 1), tag, call};
}

// What survey() learned of one peer.
struct PeerReport {
  PeerState state = PeerState::Unknown;
  // Answered: where that peer stood, as its abort said; nullopt when its abort did not say.
  std::optional<WaitPoint> waiting;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string name() const = 0;  // "inproc", "shm", "tcp", "mpi"

  // The stamp that messages posted from now on carry, and that received messages must match.
  virtual void setCallStamp(const CallStamp& stamp) { stamp_ = stamp; }
  const CallStamp& callStamp() const { return stamp_; }

  // The buffer must stay valid and unchanged until the request completes.
  virtual Request isend(int peer, const void* data, std::size_t bytes, std::uint32_t tag) = 0;
  virtual Request irecv(int peer, void* data, std::size_t bytes, std::uint32_t tag) = 0;

  // Receive-and-reduce: dst[i] = op(mine[i], received[i]) for i < count (mine may equal dst).
  // Transports whose received bytes sit where the receiver can read them (shared memory) combine
  // straight out of them, one pass instead of a copy and a pass; they return true from
  // reducesOnReceive(). For the others the executor receives into scratch and reduces itself,
  // and irecvReduce throws Internal.
  virtual bool reducesOnReceive() const { return false; }
  virtual Request irecvReduce(int peer, void* dst, const void* mine, std::uint64_t count,
                              const Reduction& how, std::uint32_t tag);

  // `bytes` of memory that this rank's peers can read in place: sends from it skip the copy into
  // the transport's own buffers (shm, single copy). Zeroed and already touched; it lives as long
  // as the transport. Null where the transport has no such memory: use ordinary memory then.
  // One thread may call it while another sends and receives (the torch backend's progress thread).
  virtual void* allocateShared(std::size_t bytes);
  // Messages sent from allocateShared memory that are at least this many bytes are read by every
  // receiver where they lie (one memory pass instead of two through the transport's buffers);
  // UINT64_MAX where none are (no such memory, or a receiver that may not map it).
  virtual std::uint64_t singleCopyBytes() const { return UINT64_MAX; }

  // Blocks until the request completes and releases it. Throws Timeout after `timeout`,
  // PeerLost when a peer is gone, Mismatch on a size, tag or stamp mismatch, or the code of an
  // abort. After a throw the transport must not be used again, except for abort().
  virtual void wait(Request request, std::chrono::milliseconds timeout) = 0;
  // wait() by a deadline. The default reads the clock and calls wait(); a transport whose waits
  // usually end within a spin overrides it to read the clock only when one does not.
  virtual void waitUntil(Request request, std::chrono::steady_clock::time_point deadline);

  // This rank gives up: tells every peer it can reach, best effort and without blocking for
  // long, so that their waits end with `cause`'s code instead of a timeout, and where it stood
  // (`at`), for their survey().
  virtual void abort(const Error& cause, const WaitPoint& at) = 0;
  // The same, from outside a collective call: waiting for nothing.
  void abort(const Error& cause) { abort(cause, WaitPoint{}); }

  // After abort(): what each peer did, learned until `until` at the latest (a transport returns
  // sooner once every peer is known). Entry rank() is Answered, without a WaitPoint (the caller
  // knows its own). The default knows nothing.
  virtual std::vector<PeerReport> survey(std::chrono::steady_clock::time_point until);

 protected:
  CallStamp stamp_;
};

}  // namespace ringlab::transport
