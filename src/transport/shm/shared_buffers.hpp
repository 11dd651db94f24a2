#pragma once
// Single copy within a host. A sender's data is read by the receiver straight from where it lies,
// instead of being copied into a slot first, when the receiver can see that memory:
// - ranks that are threads of one process see every address;
// - ranks that are processes see the buffers a rank allocated with Transport::allocateShared: a
//   memfd mapping whose descriptor a peer duplicates (pidfd_getfd) and maps read-only on the
//   first message from it. The kernel allows that where it allows ptrace between the two (same
//   user, no stricter Yama or seccomp policy); set-up checks it once per pair, and a receiver that
//   is refused says so once and gets that sender's large messages through the slots instead.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "transport/shm/shm_layout.hpp"

namespace ringlab::transport::shm {

// Where the receiver finds a message's bytes.
struct DirectSource {
  std::int32_t buffer = kInSlots;  // index in the sender's buffer table, or kSameProcess
  std::uint64_t offset = 0;        // in that buffer, or the address itself (kSameProcess)
};

// This rank's buffers that peers read from, listed in its segment header. One thread may
// allocate while others find (the torch backend allocates on the caller's thread while its
// progress thread sends): a mapping is written before the count that publishes it.
class OwnBuffers {
 public:
  explicit OwnBuffers(SegmentHeader* header) : header_(header) {}
  OwnBuffers(const OwnBuffers&) = delete;
  OwnBuffers& operator=(const OwnBuffers&) = delete;
  ~OwnBuffers();

  // `bytes` of zeroed memory, mapped until this object goes; throws Transport when the system
  // refuses or the table (kMaxSharedBuffers) is full.
  std::byte* allocate(std::size_t bytes);
  // The buffer holding [data, data + bytes) whole, if any.
  std::optional<DirectSource> find(const std::byte* data, std::size_t bytes) const;

 private:
  struct Mapping {
    std::byte* base;
    std::size_t bytes;
    int fd;
  };
  SegmentHeader* header_;
  std::array<Mapping, kMaxSharedBuffers> mappings_{};
  std::atomic<std::size_t> count_{0};  // mappings_[0, count_) are valid
};

// A peer's buffers, mapped read-only here the first time a message points into one.
class PeerBuffers {
 public:
  PeerBuffers() = default;
  PeerBuffers(const PeerBuffers&) = delete;
  PeerBuffers& operator=(const PeerBuffers&) = delete;
  PeerBuffers(PeerBuffers&&) noexcept;
  ~PeerBuffers();

  // The bytes [offset, offset + bytes) of the peer's buffer `index`, as its header lists it.
  // Throws Transport when it cannot be mapped, Internal when the range lies outside it.
  const std::byte* at(int peerPidFd, const SegmentHeader& peer, int rank, int peerRank,
                      std::int32_t index, std::uint64_t offset, std::uint64_t bytes);

 private:
  struct Mapping {
    const std::byte* base = nullptr;
    std::size_t bytes = 0;
  };
  std::vector<Mapping> mappings_;  // by buffer index
};

// Set-up: can this process duplicate the descriptor `fd` of the process behind `pidFd`? The
// answer's reason (errno text) goes to `why` when it cannot.
bool canDuplicateFd(int pidFd, int fd, std::string* why);

}  // namespace ringlab::transport::shm
