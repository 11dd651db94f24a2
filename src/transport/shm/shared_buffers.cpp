#include "transport/shm/shared_buffers.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "ringlab/core/error.hpp"

namespace ringlab::transport::shm {
namespace {

int duplicateFd(int pidFd, int fd) {
  return static_cast<int>(syscall(SYS_pidfd_getfd, pidFd, fd, 0));
}

[[noreturn]] void failErrno(const std::string& what) {
  throw Error(ErrorCode::Transport, what + ": " + std::strerror(errno));
}

}  // namespace

bool canDuplicateFd(int pidFd, int fd, std::string* why) {
  const int copy = pidFd < 0 ? -1 : duplicateFd(pidFd, fd);
  if (copy < 0) {
    if (why) *why = pidFd < 0 ? "no pidfd" : std::strerror(errno);
    return false;
  }
  close(copy);
  return true;
}

OwnBuffers::~OwnBuffers() {
  for (std::size_t i = 0; i < count_.load(std::memory_order_acquire); ++i) {
    munmap(mappings_[i].base, mappings_[i].bytes);
    close(mappings_[i].fd);
  }
}

std::byte* OwnBuffers::allocate(std::size_t bytes) {
  const std::size_t count = count_.load(std::memory_order_relaxed);  // only allocate() writes it
  if (count >= mappings_.size()) {
    throw Error(ErrorCode::Transport, "shared buffer of " + std::to_string(bytes) +
                                          " bytes: this rank already has " +
                                          std::to_string(kMaxSharedBuffers) + ", the most it can");
  }
  const std::size_t mapped = std::max<std::size_t>(bytes, 1);
  const int fd = memfd_create("ringlab-buffer", MFD_CLOEXEC);
  if (fd < 0) failErrno("shared buffer of " + std::to_string(bytes) + " bytes: memfd_create");
  // Touched here, once, so that no first touch of a page is ever timed later.
  void* data = MAP_FAILED;
  if (ftruncate(fd, static_cast<off_t>(mapped)) == 0) {
    data = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  }
  if (data == MAP_FAILED) {
    const int saved = errno;
    close(fd);
    errno = saved;
    failErrno("shared buffer of " + std::to_string(bytes) + " bytes (is memory short?)");
  }
  const std::uint32_t index = header_->sharedBuffers.load(std::memory_order_relaxed);
  header_->buffers[index] = {fd, mapped};
  header_->sharedBuffers.store(index + 1, std::memory_order_release);
  mappings_[count] = {static_cast<std::byte*>(data), mapped, fd};
  count_.store(count + 1, std::memory_order_release);
  return static_cast<std::byte*>(data);
}

std::optional<DirectSource> OwnBuffers::find(const std::byte* data, std::size_t bytes) const {
  const std::size_t count = count_.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < count; ++i) {
    const Mapping& m = mappings_[i];
    if (data >= m.base && data + bytes <= m.base + m.bytes) {
      return DirectSource{static_cast<std::int32_t>(i), static_cast<std::uint64_t>(data - m.base)};
    }
  }
  return std::nullopt;
}

PeerBuffers::PeerBuffers(PeerBuffers&& other) noexcept
    : mappings_(std::exchange(other.mappings_, {})) {}

PeerBuffers::~PeerBuffers() {
  for (const Mapping& m : mappings_) {
    if (m.base) munmap(const_cast<std::byte*>(m.base), m.bytes);
  }
}

const std::byte* PeerBuffers::at(int peerPidFd, const SegmentHeader& peer, int rank, int peerRank,
                                 std::int32_t index, std::uint64_t offset, std::uint64_t bytes) {
  const std::string who = "rank " + std::to_string(rank) + ": rank " + std::to_string(peerRank);
  const std::uint32_t listed = peer.sharedBuffers.load(std::memory_order_acquire);
  if (index < 0 || static_cast<std::uint32_t>(index) >= listed) {
    throw Error(ErrorCode::Internal, who + " sent from shared buffer " + std::to_string(index) +
                                         " but lists " + std::to_string(listed));
  }
  if (mappings_.size() <= static_cast<std::size_t>(index)) mappings_.resize(index + 1);
  Mapping& m = mappings_[index];
  if (!m.base) {
    const SharedBufferEntry entry = peer.buffers[index];
    const int fd = duplicateFd(peerPidFd, entry.fd);
    if (fd < 0) failErrno(who + "'s shared buffer " + std::to_string(index) + ": pidfd_getfd");
    void* data = mmap(nullptr, entry.bytes, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    const int saved = errno;
    close(fd);  // the mapping keeps the memory, even after the peer exits
    errno = saved;
    if (data == MAP_FAILED) failErrno(who + "'s shared buffer " + std::to_string(index) + ": mmap");
    m = {static_cast<const std::byte*>(data), entry.bytes};
  }
  if (offset > m.bytes || bytes > m.bytes - offset) {
    throw Error(ErrorCode::Internal, who + " sent " + std::to_string(bytes) + " bytes at offset " +
                                         std::to_string(offset) + " of a shared buffer of " +
                                         std::to_string(m.bytes));
  }
  return m.base + offset;
}

}  // namespace ringlab::transport::shm
