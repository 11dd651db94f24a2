// The shared-memory transport's progress engine. Every posted operation joins a FIFO per peer;
// whenever this rank posts or waits, it moves whatever it can: pieces of pending sends into free
// slots of the peer's inbound ring, arrived pieces into (or reduced into) posted receives. A large
// send whose bytes the receiver can read where they lie (single copy) takes one slot that says
// where they are; the receiver reads them from there and frees the slot, which completes the send.
// Nothing runs in the background, so a rank only spends CPU while it is inside the transport.
//
// Waking: a rank about to sleep sets `sleeping` in its own header, re-checks its work, then sleeps
// on its doorbell. A peer that publishes or frees a slot issues a fence and rings the doorbell only
// if the owner is asleep, so the common, awake case costs no system call and no shared write.
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "ringlab/core/process.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/core/streaming_stores.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/transport/fault_injection.hpp"
#include "ringlab/transport/shm.hpp"
#include "transport/futex.hpp"
#include "transport/shm/shared_buffers.hpp"
#include "transport/shm/shm_layout.hpp"
#include "transport/shm/shm_segment.hpp"
#include "transport/wait_policy.hpp"

namespace ringlab::transport {
namespace {

using namespace shm;

// With more ranks than cores, a wait for a message up to this size may spin briefly (WaitPolicy):
// larger ones measured slower with it (64 KiB AllReduce at p = 4: 25 us against 18-21).
constexpr std::uint64_t kBriefWaitBytes = 4096;

// Sleeping in slices bounds how late an abort or a dead peer is noticed.
constexpr long kSleepSliceNs = 20'000'000;

struct Op {
  bool isSend = false;
  bool reduce = false;
  bool done = false;
  int peer = 0;
  std::uint32_t tag = 0;
  std::uint64_t bytes = 0;
  std::uint64_t progressed = 0;
  const std::byte* source = nullptr;  // send: the data; reduce: this rank's own contribution
  std::byte* destination = nullptr;   // receive
  Reduction how;                      // reduce: what the receive combines
  CallStamp stamp;
  std::uint64_t stampDigest = 0;  // stamp.digest()
  // A direct send: its bytes stay where they are (directSource); it completes when the receiver
  // frees slot `freedAt - 1`, having read them all.
  bool direct = false;
  DirectSource directSource;
  std::uint64_t freedAt = 0;
};

// A FIFO of operation indices that keeps its capacity: no allocation once warm.
class IndexQueue {
 public:
  bool empty() const { return head_ == items_.size(); }
  std::uint32_t front() const { return items_[head_]; }
  void push(std::uint32_t index) { items_.push_back(index); }
  void pop() {
    if (++head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    }
  }

 private:
  std::vector<std::uint32_t> items_;
  std::size_t head_ = 0;
};

int openPidFd(int pid) {
  const long fd = syscall(SYS_pidfd_open, pid, 0);
  return fd < 0 ? -1 : static_cast<int>(fd);
}

class ShmTransport final : public Transport {
 public:
  ShmTransport(int rank, int size, std::vector<MappedSegment> segments, int probeFd,
               std::uint64_t singleCopyBytes, std::uint64_t streamingBytes)
      : rank_(rank),
        size_(size),
        segments_(std::move(segments)),
        sendQueues_(size),
        recvQueues_(size),
        unreadQueues_(size),
        written_(size, 0),
        knownRead_(size, 0),
        pidFds_(size, -1),
        isActive_(size, 0),
        waitPolicy_(size),
        own_(headerOf(segments_[rank_].data())),
        ownBuffers_(own_),
        peerBuffers_(size),
        probeFd_(probeFd),
        singleCopyBytes_(singleCopyBytes),
        streamingBytes_(streamingBytes) {
    for (int q = 0; q < size_; ++q) {
      const int pid = headerOf(segments_[q].data())->ownerPid;
      if (q != rank_ && pid != getpid()) pidFds_[q] = openPidFd(pid);
    }
  }

  ~ShmTransport() override {
    for (int fd : pidFds_) {
      if (fd >= 0) close(fd);
    }
    if (probeFd_ >= 0) close(probeFd_);
  }

  void* allocateShared(std::size_t bytes) override { return ownBuffers_.allocate(bytes); }

  // The threshold, unless some receiver was refused its sender's buffers at set-up (each
  // receiver's verdict is in its own segment, which every rank maps).
  std::uint64_t singleCopyBytes() const override {
    for (int receiver = 0; receiver < size_; ++receiver) {
      for (int sender = 0; sender < size_; ++sender) {
        if (sender == receiver || headerOf(segments_[sender].data())->ownerPid ==
                                      headerOf(segments_[receiver].data())->ownerPid)
          continue;
        if (!channelOf(segments_[receiver].data(), sender)
                 ->receiverMapsSender.load(std::memory_order_relaxed))
          return kSingleCopyOff;
      }
    }
    return singleCopyBytes_;
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return "shm"; }
  bool reducesOnReceive() const override { return true; }

  // Messages carry the stamp's digest where receivers look first (SlotHeader). A call like the
  // last keeps its digest: hashing the 48 bytes took about 7% of a 16-byte AllReduce at p = 2.
  void setCallStamp(const CallStamp& stamp) override {
    if (stamp == callStamp()) return;
    Transport::setCallStamp(stamp);
    stampDigest_ = stamp.digest();
  }

  Request isend(int peer, const void* data, std::size_t bytes, std::uint32_t tag) override {
    Op& op = post(peer, tag, bytes, true);
    op.source = static_cast<const std::byte*>(data);
    if (bytes >= singleCopyBytes_) chooseDirect(op);
    sendQueues_[peer].push(lastIndex_);
    progressSends(peer);  // start copying now: the receiver may already be waiting
    return Request{lastIndex_};
  }

  Request irecv(int peer, void* data, std::size_t bytes, std::uint32_t tag) override {
    Op& op = post(peer, tag, bytes, false);
    op.destination = static_cast<std::byte*>(data);
    recvQueues_[peer].push(lastIndex_);
    return Request{lastIndex_};
  }

  Request irecvReduce(int peer, void* dst, const void* mine, std::uint64_t count,
                      const Reduction& how, std::uint32_t tag) override {
    Op& op = post(peer, tag, count * dataTypeSize(how.type), false);
    op.reduce = true;
    op.destination = static_cast<std::byte*>(dst);
    op.source = static_cast<const std::byte*>(mine);
    op.how = how;
    recvQueues_[peer].push(lastIndex_);
    return Request{lastIndex_};
  }

  void wait(Request request, std::chrono::milliseconds timeout) override {
    waitBy(request, [&] { return std::pair(std::chrono::steady_clock::now() + timeout, timeout); });
  }

  void waitUntil(Request request, std::chrono::steady_clock::time_point deadline) override {
    waitBy(request, [&] { return std::pair(deadline, timeLeft(deadline)); });
  }

  // On one host the kernel knows: a peer that aborted answered, and its channel into our segment
  // says where it stood; one whose process exited without aborting is gone, one stopped by a
  // signal is silent. A running one is waited for until `until` (its abort rings our doorbell):
  // every peer's position is needed to tell which one stopped sending. Peers that are threads of
  // this process are only ever known by their answer.
  std::vector<PeerReport> survey(std::chrono::steady_clock::time_point until) override {
    std::vector<PeerReport> reports(static_cast<std::size_t>(size_));
    reports[rank_].state = PeerState::Answered;
    for (;;) {
      const std::uint32_t bell = own_->doorbell.load(std::memory_order_acquire);
      bool running = false;
      for (int q = 0; q < size_; ++q) {
        if (reports[q].state != PeerState::Unknown) continue;
        const Channel* from = channelOf(segments_[rank_].data(), q);
        if (from->senderAborted.load(std::memory_order_acquire)) {
          reports[q] = {PeerState::Answered,
                        decodeWaitPoint(from->senderWaitingPeer, from->senderWaitingTag,
                                        from->senderWaitingCall, size_)};
        } else if (processExited(q)) {
          reports[q].state = PeerState::Gone;
        } else if (pidFds_[q] >= 0 && isProcessStopped(headerOf(segments_[q].data())->ownerPid)) {
          reports[q].state = PeerState::Silent;
        } else {
          running = true;
        }
      }
      const auto left = until - std::chrono::steady_clock::now();
      if (!running || left <= std::chrono::steady_clock::duration::zero()) break;
      // An abort rings every peer's doorbell, asleep or not.
      futexWait(&own_->doorbell, bell,
                std::min<long>(kSleepSliceNs, std::chrono::nanoseconds(left).count()), true);
    }
    return reports;
  }

  void abort(const Error& cause, const WaitPoint& at) override {
    const std::string reason = cause.what();
    for (int q = 0; q < size_; ++q) {
      if (q == rank_) continue;
      Channel* to = channelOf(segments_[q].data(), rank_);
      to->senderWaitingPeer = encodeWaitingPeer(at);
      to->senderWaitingTag = at.tag;
      to->senderWaitingCall = at.call;
      to->senderAborted.store(1, std::memory_order_release);
      SegmentHeader* h = headerOf(segments_[q].data());
      std::uint32_t expected = 0;
      if (h->aborted.compare_exchange_strong(expected, 1)) {
        h->abortCode = static_cast<std::int32_t>(cause.code());
        h->abortRank = rank_;
        const std::size_t n = std::min(reason.size(), kAbortReasonBytes - 1);
        std::memcpy(h->abortReason, reason.data(), n);
        h->abortReason[n] = '\0';
        h->aborted.store(2, std::memory_order_release);
      }
      h->doorbell.fetch_add(1);
      futexWakeAll(&h->doorbell, true);
    }
  }

 private:
  // `limit()` gives the deadline and the timeout to name in its error. It is called only once
  // spinning and yielding gave up: a small message's wait is usually over before then, and a
  // clock read costs ~20 ns, several per call otherwise. A relative timeout so counts from there,
  // at most the policy's spin-and-yield window (~0.2 ms) late.
  template <typename Limit>
  void waitBy(Request request, Limit&& limit) {
    const Op& op = ops_[request.slot];
    auto finished = [&] {
      progressAll();
      return op.done;
    };
    publishOurCore();
    own_->waiting.store(1, std::memory_order_relaxed);
    const SegmentHeader* peer = headerOf(segments_[op.peer].data());
    bool done = waitPolicy_.spinThenYield(
        finished, [&] { return peer->cpu.load(std::memory_order_relaxed) == sched_getcpu(); },
        [&] {
          return op.bytes <= kBriefWaitBytes &&
                 peer->waiting.load(std::memory_order_relaxed) == 0 &&
                 peer->cpu.load(std::memory_order_relaxed) != sched_getcpu();
        });
    const auto [deadline, timeout] =
        done ? std::pair(std::chrono::steady_clock::time_point{}, std::chrono::milliseconds{})
             : limit();
    while (!done) {
      throwIfAborted();
      own_->sleeping.store(1, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      const std::uint32_t bell = own_->doorbell.load(std::memory_order_acquire);
      done = finished();
      if (!done) futexWait(&own_->doorbell, bell, kSleepSliceNs, true);
      own_->sleeping.store(0, std::memory_order_relaxed);
      done = done || finished();
      if (done) break;
      throwIfAborted();
      throwIfPeerDied();
      if (std::chrono::steady_clock::now() >= deadline) throwTimeout(op, timeout);
    }
    own_->waiting.store(0, std::memory_order_relaxed);
    freeOps_.push_back(request.slot);
  }

  // sched_getcpu reads the kernel's per-thread record (rseq): no system call.
  void publishOurCore() {
    const int cpu = sched_getcpu();
    if (cpu != own_->cpu.load(std::memory_order_relaxed)) {
      own_->cpu.store(cpu, std::memory_order_relaxed);
    }
  }

  Op& post(int peer, std::uint32_t tag, std::uint64_t bytes, bool isSend) {
    if (peer < 0 || peer >= size_ || peer == rank_) {
      throwInvalid("rank " + std::to_string(rank_) + ": peer " + std::to_string(peer) +
                   " is not another rank in 0.." + std::to_string(size_ - 1));
    }
    throwIfAborted();
    if (freeOps_.empty()) {
      ops_.emplace_back();
      lastIndex_ = static_cast<std::uint32_t>(ops_.size() - 1);
    } else {
      lastIndex_ = freeOps_.back();
      freeOps_.pop_back();
    }
    Op& op = ops_[lastIndex_];
    op = Op{};
    op.isSend = isSend;
    op.peer = peer;
    op.tag = tag;
    op.bytes = bytes;
    op.stamp = stamp_;
    op.stampDigest = stampDigest_;
    if (!isActive_[peer]) {
      isActive_[peer] = 1;
      active_.push_back(peer);
    }
    return op;
  }

  void progressAll() {
    for (std::size_t i = 0; i < active_.size();) {
      const int peer = active_[i];
      if (!sendQueues_[peer].empty()) progressSends(peer);
      if (!unreadQueues_[peer].empty()) completeReadSends(peer);
      if (!recvQueues_[peer].empty()) progressRecvs(peer);
      if (sendQueues_[peer].empty() && unreadQueues_[peer].empty() && recvQueues_[peer].empty()) {
        isActive_[peer] = 0;
        active_[i] = active_.back();
        active_.pop_back();
      } else {
        ++i;
      }
    }
  }

  // Fills free slots of `peer`'s inbound ring from this rank with pending sends, in order.
  void progressSends(int peer) {
    IndexQueue& queue = sendQueues_[peer];
    Channel* channel = channelOf(segments_[peer].data(), rank_);
    bool published = false;
    while (!queue.empty()) {
      // The receiver's count is read again only when the ring looks full: its line then stays
      // with the receiver, and a send does not wait for it to cross over.
      const std::uint64_t w = written_[peer];
      if (w - knownRead_[peer] >= kSlotsPerChannel) {
        knownRead_[peer] = channel->read.load(std::memory_order_acquire);
        if (w - knownRead_[peer] >= kSlotsPerChannel) break;
      }
      Op& op = ops_[queue.front()];
      Slot& slot = channel->slots[w % kSlotsPerChannel];
      const std::uint64_t piece =
          op.direct ? 0 : std::min<std::uint64_t>(kSlotBytes, op.bytes - op.progressed);
      slot.header.messageBytes = op.bytes;
      slot.header.pieceBytes = static_cast<std::uint32_t>(piece);
      slot.header.tag = op.tag;
      slot.header.directBuffer = op.direct ? op.directSource.buffer : kInSlots;
      slot.header.directOffset = op.directSource.offset;
      slot.header.stampDigest = op.stampDigest;
      slot.header.stamp = op.stamp;
      if (piece) copyBytes(pieceIn(slot, piece), op.source + op.progressed, piece);
      slot.header.sequence.store(w + 1, std::memory_order_release);
      written_[peer] = w + 1;
      published = true;
      if (op.direct) {
        op.freedAt = w + 1;
        unreadQueues_[peer].push(queue.front());
        queue.pop();
        continue;
      }
      op.progressed += piece;
      if (op.progressed == op.bytes) {
        op.done = true;
        queue.pop();
      }
    }
    if (published) ring(peer);
  }

  // A direct send goes without copying where its receiver can read the bytes where they are:
  // a thread of this process reads any address; another process reads our shared buffers, if
  // set-up found that it may.
  void chooseDirect(Op& op) {
    if (isSameProcess(op.peer)) {
      op.direct = true;
      op.directSource = {kSameProcess, reinterpret_cast<std::uintptr_t>(op.source)};
    } else if (channelOf(segments_[op.peer].data(), rank_)
                   ->receiverMapsSender.load(std::memory_order_relaxed)) {
      if (const auto found = ownBuffers_.find(op.source, op.bytes)) {
        op.direct = true;
        op.directSource = *found;
      }
    }
  }

  bool isSameProcess(int peer) const {
    return headerOf(segments_[peer].data())->ownerPid == own_->ownerPid;
  }

  // Direct sends are done once their receiver has freed their slot: it has read every byte.
  void completeReadSends(int peer) {
    IndexQueue& queue = unreadQueues_[peer];
    const Channel* channel = channelOf(segments_[peer].data(), rank_);
    const std::uint64_t read = channel->read.load(std::memory_order_acquire);
    while (!queue.empty() && ops_[queue.front()].freedAt <= read) {
      Op& op = ops_[queue.front()];
      op.progressed = op.bytes;
      op.done = true;
      queue.pop();
    }
  }

  // Where a direct message's bytes are, as this process sees them.
  const std::byte* directBytes(const Op& op, const SlotHeader& header) {
    // A sender that gave up may free its buffer (a thread's memory is not kept by any mapping):
    // its abort is the answer, not its bytes.
    if (channelOf(segments_[rank_].data(), op.peer)
            ->senderAborted.load(std::memory_order_acquire)) {
      // Its notice in our header follows at once, unless it died on the way.
      while (own_->aborted.load(std::memory_order_acquire) == 0 && !processExited(op.peer)) {
        sched_yield();
      }
      throwIfAborted();
      throwIfPeerDied();
    }
    if (header.directBuffer == kSameProcess) {
      if (!isSameProcess(op.peer)) {
        throw Error(ErrorCode::Internal, "rank " + std::to_string(rank_) + ": rank " +
                                             std::to_string(op.peer) +
                                             " sent an address of another process");
      }
      return reinterpret_cast<const std::byte*>(static_cast<std::uintptr_t>(header.directOffset));
    }
    return peerBuffers_[op.peer].at(pidFds_[op.peer], *headerOf(segments_[op.peer].data()), rank_,
                                    op.peer, header.directBuffer, header.directOffset, op.bytes);
  }

  // Whether a piece is written with streaming stores: one read where it lies (a slot's piece
  // and its destination stay in cache), when this rank's data is past the caches. What decides
  // is the data the call touches: an out-of-place reduce has an input and an output, twice the
  // vector; a copy may be in place, where the vector is all of it, so it streams from a vector
  // twice as large (at 32 MiB in place, streaming its copies was slower).
  bool streams(const Op& op, const SlotHeader& header, bool outOfPlaceReduce) const {
    if (header.directBuffer == kInSlots) return false;
    const std::uint64_t vector =
        op.stamp.count * dataTypeSize(static_cast<DataType>(op.stamp.type));
    return (outOfPlaceReduce ? vector : vector / 2) >= streamingBytes_;
  }

  // Drains arrived pieces from `peer` into the posted receives, in order.
  void progressRecvs(int peer) {
    IndexQueue& queue = recvQueues_[peer];
    Channel* channel = channelOf(segments_[rank_].data(), peer);
    bool released = false;
    while (!queue.empty()) {
      const std::uint64_t r = channel->read.load(std::memory_order_relaxed);
      const Slot& slot = channel->slots[r % kSlotsPerChannel];
      if (slot.header.sequence.load(std::memory_order_acquire) != r + 1) break;
      Op& op = ops_[queue.front()];
      const std::uint64_t piece = checkPiece(op, slot.header);
      if (piece) {
        const std::byte* from = slot.header.directBuffer == kInSlots ? pieceIn(slot, piece)
                                                                     : directBytes(op, slot.header);
        std::byte* dst = op.destination + op.progressed;
        const std::byte* mine = op.source + op.progressed;
        if (op.reduce && mine != dst && streams(op, slot.header, true)) {
          reduceStreaming(op.how, dst, mine, from, piece / dataTypeSize(op.how.type));
        } else if (op.reduce) {
          reduce(op.how, dst, mine, from, piece / dataTypeSize(op.how.type));
        } else if (streams(op, slot.header, false)) {
          copyBytesStreaming(dst, from, piece);
        } else {
          copyBytes(dst, from, piece);
        }
      }
      channel->read.store(r + 1, std::memory_order_release);
      released = true;
      op.progressed += piece;
      if (op.progressed == op.bytes) {
        op.done = true;
        queue.pop();
      }
    }
    if (released) ring(peer);  // the sender may be waiting for a free slot
  }

  // The piece's header must belong to the receive it is matched with.
  std::uint64_t checkPiece(const Op& op, const SlotHeader& header) const {
    if (header.stampDigest != op.stampDigest) {
      throw stampMismatch(rank_, op.stamp, op.peer, header.stamp);
    }
    if (header.tag != op.tag || header.messageBytes != op.bytes) {
      throw Error(ErrorCode::Mismatch,
                  "rank " + std::to_string(rank_) + ": expected " + std::to_string(op.bytes) +
                      " bytes (tag " + std::to_string(op.tag) + ") from rank " +
                      std::to_string(op.peer) + " but it sent " +
                      std::to_string(header.messageBytes) + " bytes (tag " +
                      std::to_string(header.tag) + "); ranks disagree on count, dtype or schedule");
    }
    // A direct message comes whole: its slot holds no bytes.
    if (header.directBuffer != kInSlots && op.progressed == 0) return op.bytes;
    const std::uint64_t expected = std::min<std::uint64_t>(kSlotBytes, op.bytes - op.progressed);
    if (header.directBuffer != kInSlots || header.pieceBytes != expected) {
      throw Error(ErrorCode::Internal, "rank " + std::to_string(rank_) + ": piece of " +
                                           std::to_string(header.pieceBytes) + " bytes from rank " +
                                           std::to_string(op.peer) + ", expected " +
                                           std::to_string(expected));
    }
    return expected;
  }

  // Wakes `peer` if it sleeps. The fence orders our slot update before reading its flag; it
  // pairs with the fence a sleeper issues between setting the flag and re-checking its rings.
  void ring(int peer) {
    SegmentHeader* h = headerOf(segments_[peer].data());
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (h->sleeping.load(std::memory_order_relaxed)) {
      h->doorbell.fetch_add(1, std::memory_order_acq_rel);
      futexWakeAll(&h->doorbell, true);
    }
  }

  void throwIfAborted() {
    std::uint32_t state = own_->aborted.load(std::memory_order_acquire);
    if (state == 0) return;
    while (state != 2) {  // the aborting rank is writing its reason
      sched_yield();
      state = own_->aborted.load(std::memory_order_acquire);
    }
    throw Error(static_cast<ErrorCode>(own_->abortCode),
                "rank " + std::to_string(rank_) + ": rank " + std::to_string(own_->abortRank) +
                    " aborted: " +
                    printableText(std::string_view(own_->abortReason,
                                                   strnlen(own_->abortReason, kAbortReasonBytes))));
  }

  bool processExited(int peer) const {
    pollfd p{pidFds_[peer], POLLIN, 0};
    return pidFds_[peer] >= 0 && poll(&p, 1, 0) > 0;
  }

  // A peer process that has exited can never complete our operations with it.
  void throwIfPeerDied() {
    for (int peer : active_) {
      if (processExited(peer)) {
        throw Error(ErrorCode::PeerLost,
                    "rank " + std::to_string(rank_) + ": rank " + std::to_string(peer) + " (pid " +
                        std::to_string(headerOf(segments_[peer].data())->ownerPid) +
                        ") exited in the middle of a collective");
      }
    }
  }

  [[noreturn]] void throwTimeout(const Op& op, std::chrono::milliseconds timeout) const {
    throw Error(ErrorCode::Timeout,
                "rank " + std::to_string(rank_) + ": " + (op.isSend ? "send of " : "receive of ") +
                    std::to_string(op.bytes) + " bytes " + (op.isSend ? "to" : "from") + " rank " +
                    std::to_string(op.peer) + " (tag " + std::to_string(op.tag) +
                    ") not done within " + std::to_string(timeout.count()) + " ms; rank " +
                    std::to_string(op.peer) + " is stuck, gone, or running a different schedule");
  }

  const int rank_;
  const int size_;
  std::vector<MappedSegment> segments_;  // by rank; ours included
  std::vector<Op> ops_;
  std::vector<std::uint32_t> freeOps_;
  std::uint32_t lastIndex_ = 0;
  // Per peer: sends still to publish, direct sends published but not yet read, receives.
  std::vector<IndexQueue> sendQueues_, recvQueues_, unreadQueues_;
  std::vector<std::uint64_t> written_;    // pieces sent to each peer
  std::vector<std::uint64_t> knownRead_;  // each peer's `read` when last looked at
  std::uint64_t stampDigest_ = stamp_.digest();
  std::vector<int> pidFds_;
  std::vector<int> active_;
  std::vector<char> isActive_;
  WaitPolicy waitPolicy_;
  SegmentHeader* own_;
  OwnBuffers ownBuffers_;
  std::vector<PeerBuffers> peerBuffers_;  // by rank
  int probeFd_;
  std::uint64_t singleCopyBytes_;  // messages this large or larger go direct where they can
  std::uint64_t streamingBytes_;   // collectives this large or larger stream direct pieces
};

std::string randomJobId() {
  std::random_device device;
  char text[17];
  std::snprintf(text, sizeof text, "%08x%08x", device(), device());
  return text;
}

std::string segmentName(const std::string& job, int rank) {
  return "/ringlab-" + job + "-" + std::to_string(rank);
}

// An environment variable that overrides one of the options' thresholds: a size (64K, 1M) or
// "off"; `use` says in the error what the size is.
std::uint64_t thresholdFromEnvironment(const char* name, std::uint64_t fallback, const char* use) {
  const char* value = std::getenv(name);
  if (!value || !*value) return fallback;
  if (std::string_view(value) == "off") return UINT64_MAX;
  try {
    return parseSize(value);
  } catch (const Error&) {
    throwInvalid(std::string(name) + " '" + printableText(value) + "': use a size " + use +
                 " or off");
  }
}

// Whether this rank can map each peer's shared buffers (same process: nothing to map). A refusal
// is said once per process, with the kernel's reason; those peers' messages take the slots.
void probeSingleCopy(int rank, int size, const std::vector<MappedSegment>& segments) {
  static std::once_flag said;
  for (int q = 0; q < size; ++q) {
    const SegmentHeader* peer = headerOf(segments[q].data());
    if (q == rank || peer->ownerPid == getpid()) continue;
    const int pidFd = openPidFd(peer->ownerPid);
    std::string why;
    const bool can = canDuplicateFd(pidFd, peer->probeFd, &why);
    if (pidFd >= 0) close(pidFd);
    channelOf(segments[rank].data(), q)->receiverMapsSender.store(can ? 1 : 0);
    if (!can) {
      std::call_once(said, [&] {
        std::fprintf(stderr,
                     "ringlab: shm: rank %d cannot map rank %d's buffers (%s); large messages "
                     "between processes take the two-copy path\n",
                     rank, q, why.c_str());
      });
    }
  }
}

// Unlinks our name however set-up ends: after everyone mapped it, or on failure.
struct UnlinkGuard {
  std::string name;
  ~UnlinkGuard() { unlinkSegment(name); }
};

}  // namespace

std::unique_ptr<Transport> connectShm(int rank, int size, bootstrap::Store& store,
                                      const ShmOptions& options) {
  if (size < 1 || rank < 0 || rank >= size) {
    throwInvalid("rank " + std::to_string(rank) + " of " + std::to_string(size) +
                 ": need 0 <= rank < size");
  }
  std::string job = options.job;
  if (job.empty()) {
    if (rank == 0)
      store.set("shm/job", job = randomJobId());
    else
      job = store.get("shm/job", options.timeout);
  }
  if (job.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") !=
          std::string::npos ||
      job.size() > 64) {
    throwInvalid("job id '" + printableText(job) + "': use up to 64 letters, digits, '_' or '.'");
  }
  const std::size_t bytes = segmentBytes(size);
  std::vector<MappedSegment> segments(size);
  UnlinkGuard guard{segmentName(job, rank)};
  segments[rank] = MappedSegment::create(guard.name, bytes);
  SegmentHeader* own = headerOf(segments[rank].data());
  own->magic = kSegmentMagic;
  own->ranks = size;
  own->ownerPid = getpid();
  own->cpu.store(sched_getcpu(), std::memory_order_relaxed);
  // Peers duplicate this descriptor at set-up to learn whether they may map our buffers.
  const int probeFd = memfd_create("ringlab-probe", MFD_CLOEXEC);
  own->probeFd = probeFd;
  struct CloseOnFailure {
    int fd;
    ~CloseOnFailure() {
      if (fd >= 0) close(fd);
    }
  } probeGuard{probeFd};
  injectSetupFault(rank);  // test-only: RINGLAB_FAULT=stop|kill,...,at=setup
  bootstrap::barrier(store, "shm-created-" + job, rank, size, options.timeout);
  for (int q = 0; q < size; ++q) {
    if (q == rank) continue;
    segments[q] = MappedSegment::open(segmentName(job, q), bytes);
    const SegmentHeader* h = headerOf(segments[q].data());
    if (h->magic != kSegmentMagic) {
      throw Error(ErrorCode::Mismatch,
                  "rank " + std::to_string(rank) + ": rank " + std::to_string(q) +
                      "'s segment has another layout (magic " + std::to_string(h->magic) +
                      ", this rank's " + std::to_string(kSegmentMagic) +
                      "); is every rank running the same ringlab version?");
    }
    if (h->ranks != size) {
      throw Error(ErrorCode::Mismatch, "rank " + std::to_string(rank) + ": rank " +
                                           std::to_string(q) + "'s segment is for " +
                                           std::to_string(h->ranks) + " ranks, this rank expects " +
                                           std::to_string(size));
    }
  }
  probeSingleCopy(rank, size, segments);
  bootstrap::barrier(store, "shm-mapped-" + job, rank, size, options.timeout);
  auto transport = std::make_unique<ShmTransport>(
      rank, size, std::move(segments), probeFd,
      thresholdFromEnvironment("RINGLAB_SHM_SINGLE_COPY", options.singleCopyBytes,
                               "from which messages go single-copy (e.g. 64K, 1M)"),
      thresholdFromEnvironment("RINGLAB_SHM_STREAMING", options.streamingBytes,
                               "of the collective's vector from which single-copy receives "
                               "write with streaming stores (e.g. 32M)"));
  probeGuard.fd = -1;  // the transport closes it
  return transport;
}

}  // namespace ringlab::transport
