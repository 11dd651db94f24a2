#pragma once
// The layout of one rank's shared-memory segment. Rank r's segment holds what r waits for: its
// doorbell, its abort notice, and one inbound channel per peer s (a ring of slots that s fills
// and r drains). Counters that different processes write sit on separate cache lines.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "ringlab/transport/transport.hpp"

namespace ringlab::transport::shm {

// Slot payload and ring depth, per channel. A message is cut into slot-sized pieces, so the
// receiver starts combining the first piece while the sender copies the next. 8 x 64 KiB keeps
// a channel's ring (512 KiB) about the size of a core's L2 cache.
inline constexpr std::size_t kSlotBytes = 64 * 1024;
inline constexpr std::uint64_t kSlotsPerChannel = 8;
inline constexpr std::size_t kCacheLine = 64;
inline constexpr std::size_t kAbortReasonBytes = 480;
// Buffers a rank can hand out for peers to read from directly (shared_buffers.hpp).
inline constexpr int kMaxSharedBuffers = 16;
// SlotHeader::directBuffer: the bytes are in the slot, or at an address of this same process.
inline constexpr std::int32_t kInSlots = -1;
inline constexpr std::int32_t kSameProcess = -2;

struct SharedBufferEntry {
  std::int32_t fd;  // the owner's memfd, for peers to duplicate with pidfd_getfd
  std::uint64_t bytes;
};

struct alignas(kCacheLine) SegmentHeader {
  std::uint32_t magic;
  std::int32_t ranks;
  std::int32_t ownerPid;
  alignas(kCacheLine) std::atomic<std::uint32_t> doorbell;  // bumped by peers on any change
  alignas(kCacheLine) std::atomic<std::uint32_t> sleeping;  // 1 while the owner sleeps on it
  // The core the owner last began a wait on (sched_getcpu), written only when it changes, and
  // whether it waits now (1) or works (0): a waiting peer asks whether it shares that core, or
  // whether the owner works on another one (WaitPolicy).
  alignas(kCacheLine) std::atomic<std::int32_t> cpu;
  std::atomic<std::uint32_t> waiting;
  alignas(kCacheLine) std::atomic<std::uint32_t> aborted;  // 0, then 1 (being written), then 2
  std::int32_t abortCode;
  std::int32_t abortRank;
  char abortReason[kAbortReasonBytes];
  std::int32_t probeFd;  // a descriptor peers try to duplicate at set-up (shared_buffers.hpp)
  // Entries [0, sharedBuffers) are valid: each is written before the count is released.
  alignas(kCacheLine) std::atomic<std::uint32_t> sharedBuffers;
  SharedBufferEntry buffers[kMaxSharedBuffers];
};

// A piece this small travels in its header's first cache line (SlotHeader::inlinePayload).
inline constexpr std::size_t kInlinePieceBytes = 16;

// One piece of a message. A receiver polls `sequence` and then reads only the rest of that line:
// a small message crosses between cores in one cache-line transfer, where a separate counter, a
// header and a payload were three in a row (about 0.15 us each here).
struct alignas(kCacheLine) SlotHeader {
  // Piece number + 1 (counted per channel from 1) once the slot holds that piece: the store that
  // publishes it, after everything else in the slot.
  std::atomic<std::uint64_t> sequence;
  std::uint64_t messageBytes;  // the whole message
  std::uint32_t pieceBytes;    // this slot's payload (0 for a direct message)
  std::uint32_t tag;
  // A direct message's bytes stay with the sender: in its shared buffer `directBuffer` at
  // `directOffset`, or (kSameProcess) at the address `directOffset`. The slot is freed, and the
  // sender's send completes, once the receiver has read the whole message.
  std::int32_t directBuffer;
  std::uint32_t reserved;
  std::uint64_t directOffset;
  std::uint64_t stampDigest;  // CallStamp::digest() of the sender's call
  std::byte inlinePayload[kInlinePieceBytes];
  // The sender's whole stamp, read only when the digests differ, to name both calls.
  alignas(kCacheLine) CallStamp stamp;
};
static_assert(offsetof(SlotHeader, stamp) == kCacheLine, "a receiver's fields fit one line");

struct alignas(kCacheLine) Slot {
  SlotHeader header;
  std::byte payload[kSlotBytes];
};

// Where a piece of `pieceBytes` lies in its slot: the same rule for the sender and the receiver.
inline std::byte* pieceIn(Slot& slot, std::uint64_t pieceBytes) {
  return pieceBytes <= kInlinePieceBytes ? slot.header.inlinePayload : slot.payload;
}
inline const std::byte* pieceIn(const Slot& slot, std::uint64_t pieceBytes) {
  return pieceIn(const_cast<Slot&>(slot), pieceBytes);
}

// Inbound ring from one sender. `read` counts the pieces the receiver has freed; the sender, which
// counts the pieces it has written itself, may write while written - read < kSlotsPerChannel.
struct alignas(kCacheLine) Channel {
  alignas(kCacheLine) std::atomic<std::uint64_t> read;  // receiver's
  // 1 once the sender has aborted: every aborting rank says so, even where another rank's abort
  // notice took the segment header first.
  alignas(kCacheLine) std::atomic<std::uint32_t> senderAborted;
  // Set by the receiver at set-up: 1 if it can map the sender's shared buffers.
  std::atomic<std::uint32_t> receiverMapsSender;
  // Where the sender stood when it aborted (a WaitPoint: its peer as encodeWaitingPeer writes it,
  // its tag and call), written before senderAborted is released.
  std::uint32_t senderWaitingPeer;
  std::uint32_t senderWaitingTag;
  std::uint32_t senderWaitingCall;
  Slot slots[kSlotsPerChannel];
};

// "RGL" and the layout's version, so that ranks of another version refuse a segment rather than
// misread it. 2: a channel says where its sender stood when it aborted.
inline constexpr std::uint32_t kSegmentLayoutVersion = 2;
inline constexpr std::uint32_t kSegmentMagic = 0x52474c00u | kSegmentLayoutVersion;

inline std::size_t segmentBytes(int ranks) {
  return sizeof(SegmentHeader) + sizeof(Channel) * static_cast<std::size_t>(ranks);
}

inline SegmentHeader* headerOf(void* segment) {
  return static_cast<SegmentHeader*>(segment);
}

// Channel carrying messages from `sender` into the segment's owner.
inline Channel* channelOf(void* segment, int sender) {
  return reinterpret_cast<Channel*>(static_cast<std::byte*>(segment) + sizeof(SegmentHeader)) +
         sender;
}

}  // namespace ringlab::transport::shm
