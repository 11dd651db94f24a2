#include "ringlab/core/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"

namespace ringlab {
namespace {

const char* specialKind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO or pipe";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

// Closes the descriptor on every way out, errors included.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string readTextFile(const std::string& path, std::string_view what, InputBound bound) {
  const std::string who = fmt::format("{} {}", what, path);
  if (path.empty()) throwInvalid(fmt::format("{}: an empty path names no file", what));
  // Non-blocking, so that opening a FIFO with no writer returns at once; the type is then taken
  // from the open descriptor, so it is the file that is read that was checked.
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (file.fd < 0) throwInvalid(fmt::format("{}: cannot be read ({})", who, std::strerror(errno)));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0)
    throwInvalid(fmt::format("{}: cannot be read ({})", who, std::strerror(errno)));
  if (S_ISDIR(info.st_mode)) throwInvalid(who + ": is a directory, not a file");
  if (!S_ISREG(info.st_mode)) {
    throwInvalid(
        fmt::format("{}: not a regular file ({}); give a file", who, specialKind(info.st_mode)));
  }
  const auto tooLarge = [&] {
    throwInvalid(fmt::format("{}: larger than {} MiB, the limit for {}", who, bound.maxBytes >> 20,
                             bound.format));
  };
  if (static_cast<std::uint64_t>(info.st_size) > bound.maxBytes) tooLarge();
  // Read in pieces and never past the bound: the file may grow while it is read.
  std::string text;
  text.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(file.fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throwInvalid(fmt::format("{}: read error ({})", who, std::strerror(errno)));
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > bound.maxBytes) tooLarge();
  }
  return text;
}

}  // namespace ringlab
