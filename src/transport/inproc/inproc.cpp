#include "ringlab/transport/inproc.hpp"

#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

#include "ringlab/core/error.hpp"
#include "ringlab/core/reduce.hpp"
#include "transport/futex.hpp"
#include "transport/wait_policy.hpp"

namespace ringlab::transport {
// Named, not anonymous: InprocWorld::Shared (declared in the public header) holds these types, and
// a type with external linkage may not hold types of an anonymous namespace.
namespace inproc_detail {

enum SlotState : std::uint32_t { kPending = 0, kDone = 1, kSleeping = 2 };

// A reducing receive: data = op(mine, sent), straight from the sender's buffer.
struct ReducingReceive {
  bool reduce = false;
  const void* mine = nullptr;
  Reduction how;
};

struct Slot {
  std::atomic<std::uint32_t> state{kPending};
  void* data = nullptr;  // const for sends
  std::size_t bytes = 0;
  std::uint32_t tag = 0;
  bool isSend = false;
  bool sizeMismatch = false;
  std::size_t peerBytes = 0;
  int peer = 0;
  CallStamp stamp;  // this side's stamp when posted
  bool stampMismatch = false;
  CallStamp peerStamp;        // the other side's, when they differ
  ReducingReceive reduction;  // receives only
};

void complete(Slot* slot) {
  if (slot->state.exchange(kDone, std::memory_order_acq_rel) == kSleeping)
    futexWakeAll(&slot->state, false);
}

// Posted but unmatched operations from one rank to another, oldest first. There are p^2 of them,
// so they are vectors, empty until used: a deque allocates over half a kilobyte up front, 1.4 GB
// at p = 1024. The queues hold the few operations a rank has in flight to one peer.
struct Channel {
  std::mutex mutex;
  std::vector<Slot*> sends;
  std::vector<Slot*> recvs;
};

class InprocTransport;

}  // namespace inproc_detail

using inproc_detail::Channel;
using inproc_detail::InprocTransport;

static void InprocWorldAbort(InprocWorld::Shared& shared, ErrorCode code,
                             const std::string& reason);

struct InprocWorld::Shared {
  int ranks = 0;
  std::vector<Channel> channels;  // [src * ranks + dst]
  std::vector<std::unique_ptr<InprocTransport>> transports;
  std::atomic<bool> aborted{false};
  std::mutex reasonMutex;
  ErrorCode abortCode = ErrorCode::PeerLost;
  std::string abortReason;
  Channel& channel(int src, int dst) {
    return channels[static_cast<std::size_t>(src) * ranks + dst];
  }
};

namespace inproc_detail {

class InprocTransport final : public Transport {
 public:
  InprocTransport(InprocWorld::Shared& shared, int rank)
      : shared_(shared), rank_(rank), waitPolicy_(shared.ranks) {}

  int rank() const override { return rank_; }
  int size() const override { return shared_.ranks; }
  std::string name() const override { return "inproc"; }
  // Whichever rank matches a pair reads the sender's buffer in place: a reducing receive combines
  // straight from it, one pass instead of a copy into scratch and a pass.
  bool reducesOnReceive() const override { return true; }

  Request isend(int peer, const void* data, std::size_t bytes, std::uint32_t tag) override {
    checkPeer(peer);
    return post(shared_.channel(rank_, peer), peer, const_cast<void*>(data), bytes, tag, true);
  }

  Request irecv(int peer, void* data, std::size_t bytes, std::uint32_t tag) override {
    checkPeer(peer);
    return post(shared_.channel(peer, rank_), peer, data, bytes, tag, false);
  }

  Request irecvReduce(int peer, void* dst, const void* mine, std::uint64_t count,
                      const Reduction& how, std::uint32_t tag) override {
    checkPeer(peer);
    return post(shared_.channel(peer, rank_), peer, dst, count * dataTypeSize(how.type), tag, false,
                ReducingReceive{true, mine, how});
  }

  void wait(Request request, std::chrono::milliseconds timeout) override {
    Slot& slot = slots_[request.slot];
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    // Threads do not say where they run: after a late yield, assume the peer shares our core.
    waitPolicy_.spinThenYield([&] { return slot.state.load(std::memory_order_acquire) == kDone; },
                              [] { return true; }, [] { return false; });
    while (slot.state.load(std::memory_order_acquire) != kDone) {
      throwIfAborted();
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        throw Error(ErrorCode::Timeout,
                    "rank " + std::to_string(rank_) + ": " + (slot.isSend ? "send" : "receive") +
                        " of " + std::to_string(slot.bytes) + " bytes (tag " +
                        std::to_string(slot.tag) + ") not matched within " +
                        std::to_string(timeout.count()) +
                        " ms; a peer is missing, stuck, or running a different schedule");
      }
      std::uint32_t expected = kPending;
      slot.state.compare_exchange_strong(expected, kSleeping, std::memory_order_acq_rel);
      if (expected == kDone) break;
      // Sleep in slices so that an abort is noticed promptly.
      futexWait(&slot.state, kSleeping, 10'000'000L, false);
    }
    const bool mismatch = slot.sizeMismatch;
    const std::size_t bytes = slot.bytes, peerBytes = slot.peerBytes;
    freeSlots_.push_back(request.slot);
    if (slot.stampMismatch) throw stampMismatch(rank_, slot.stamp, slot.peer, slot.peerStamp);
    if (mismatch) {
      throw Error(ErrorCode::Mismatch, "rank " + std::to_string(rank_) + ": posted " +
                                           std::to_string(bytes) + " bytes but the peer posted " +
                                           std::to_string(peerBytes) +
                                           "; ranks disagree on count, dtype or schedule");
    }
  }

 private:
  void checkPeer(int peer) const {
    if (peer < 0 || peer >= shared_.ranks || peer == rank_) {
      throwInvalid("rank " + std::to_string(rank_) + ": peer " + std::to_string(peer) +
                   " is not another rank in 0.." + std::to_string(shared_.ranks - 1));
    }
  }

  std::uint32_t allocateSlot() {
    if (freeSlots_.empty()) {
      slots_.emplace_back();  // deque: existing slots never move, peers may hold pointers
      return static_cast<std::uint32_t>(slots_.size() - 1);
    }
    const std::uint32_t index = freeSlots_.back();
    freeSlots_.pop_back();
    return index;
  }

  void throwIfAborted() {
    if (!shared_.aborted.load()) return;
    std::lock_guard lock(shared_.reasonMutex);
    throw Error(shared_.abortCode,
                "rank " + std::to_string(rank_) + ": communicator aborted: " + shared_.abortReason);
  }

 public:
  void abort(const Error& cause, const WaitPoint&) override {
    InprocWorldAbort(shared_, cause.code(),
                     "rank " + std::to_string(rank_) + " failed: " + cause.what());
  }

 private:
  Request post(Channel& channel, int peer, void* data, std::size_t bytes, std::uint32_t tag,
               bool isSend, const ReducingReceive& reduction = {}) {
    throwIfAborted();
    const std::uint32_t index = allocateSlot();
    Slot* mine = &slots_[index];
    mine->state.store(kPending, std::memory_order_relaxed);
    mine->data = data;
    mine->bytes = bytes;
    mine->tag = tag;
    mine->isSend = isSend;
    mine->sizeMismatch = false;
    mine->peer = peer;
    mine->stamp = stamp_;
    mine->stampMismatch = false;
    mine->reduction = reduction;
    Slot* match = nullptr;
    {
      std::lock_guard lock(channel.mutex);
      auto& others = isSend ? channel.recvs : channel.sends;
      for (auto it = others.begin(); it != others.end(); ++it) {
        if ((*it)->tag == tag) {
          match = *it;
          others.erase(it);
          break;
        }
      }
      if (!match) (isSend ? channel.sends : channel.recvs).push_back(mine);
    }
    if (match) {
      Slot* send = isSend ? mine : match;
      Slot* recv = isSend ? match : mine;
      if (!(send->stamp == recv->stamp)) {
        send->stampMismatch = recv->stampMismatch = true;
        send->peerStamp = recv->stamp;
        recv->peerStamp = send->stamp;
      } else if (send->bytes != recv->bytes) {
        send->sizeMismatch = recv->sizeMismatch = true;
        send->peerBytes = recv->bytes;
        recv->peerBytes = send->bytes;
      } else if (send->bytes && recv->reduction.reduce) {
        const ReducingReceive& r = recv->reduction;
        reduce(r.how, recv->data, r.mine, send->data, send->bytes / dataTypeSize(r.how.type));
      } else if (send->bytes) {
        copyBytes(recv->data, send->data, send->bytes);
      }
      complete(match);
      complete(mine);
    }
    return Request{index};
  }

  InprocWorld::Shared& shared_;
  const int rank_;
  std::deque<Slot> slots_;
  std::vector<std::uint32_t> freeSlots_;
  WaitPolicy waitPolicy_;  // each rank learns on its own whether its core is shared
};

}  // namespace inproc_detail

InprocWorld::InprocWorld(int ranks) : shared_(std::make_unique<Shared>()) {
  if (ranks < 1)
    throwInvalid("p = " + std::to_string(ranks) + ": the number of ranks must be >= 1");
  shared_->ranks = ranks;
  shared_->channels = std::vector<Channel>(static_cast<std::size_t>(ranks) * ranks);
  for (int r = 0; r < ranks; ++r)
    shared_->transports.push_back(std::make_unique<InprocTransport>(*shared_, r));
}

InprocWorld::~InprocWorld() = default;

int InprocWorld::size() const {
  return shared_->ranks;
}

Transport& InprocWorld::transport(int rank) {
  if (rank < 0 || rank >= shared_->ranks) {
    throwInvalid("rank " + std::to_string(rank) + " is out of range 0.." +
                 std::to_string(shared_->ranks - 1));
  }
  return *shared_->transports[rank];
}

static void InprocWorldAbort(InprocWorld::Shared& shared, ErrorCode code,
                             const std::string& reason) {
  {
    std::lock_guard lock(shared.reasonMutex);
    if (shared.aborted.load()) return;
    shared.abortCode = code;
    shared.abortReason = reason;
  }
  shared.aborted.store(true);
}

void InprocWorld::abort(const std::string& reason) {
  InprocWorldAbort(*shared_, ErrorCode::PeerLost, reason);
}

}  // namespace ringlab::transport
