#include "transport/shm/shm_segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "ringlab/core/error.hpp"

namespace ringlab::transport::shm {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& name) {
  throw Error(ErrorCode::Transport,
              "shared memory " + name + ": " + what + ": " + std::strerror(errno));
}

void* mapFd(int fd, std::size_t bytes, const std::string& name) {
  void* data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int saved = errno;
  close(fd);
  errno = saved;
  if (data == MAP_FAILED) fail("mmap of " + std::to_string(bytes) + " bytes failed", name);
  return data;
}

}  // namespace

MappedSegment MappedSegment::create(const std::string& name, std::size_t bytes) {
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    fail(errno == EEXIST ? "already exists (another job with the same RINGLAB_JOB?)"
                         : "cannot create",
         name);
  }
  // Sparse: pages are allocated when first touched, so channels never used cost nothing.
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int saved = errno;
    close(fd);
    shm_unlink(name.c_str());
    errno = saved;
    fail("cannot size to " + std::to_string(bytes) + " bytes (is /dev/shm large enough?)", name);
  }
  return MappedSegment(mapFd(fd, bytes, name), bytes);
}

MappedSegment MappedSegment::open(const std::string& name, std::size_t bytes) {
  const int fd = shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) fail("cannot open", name);
  return MappedSegment(mapFd(fd, bytes, name), bytes);
}

MappedSegment::MappedSegment(MappedSegment&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

MappedSegment& MappedSegment::operator=(MappedSegment&& other) noexcept {
  if (this != &other) {
    if (data_) munmap(data_, bytes_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

MappedSegment::~MappedSegment() {
  if (data_) munmap(data_, bytes_);
}

void unlinkSegment(const std::string& name) {
  shm_unlink(name.c_str());
}

}  // namespace ringlab::transport::shm
