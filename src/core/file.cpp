#include "ringlab/core/file.hpp"

#include <sys/stat.h>

#include <fstream>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"

namespace ringlab {

std::string readTextFile(const std::string& path, std::string_view what, std::uint64_t maxBytes) {
  const std::string who = fmt::format("{} {}", what, path);
  if (path.empty()) throwInvalid(fmt::format("{}: an empty path names no file", what));
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throwInvalid(who + ": cannot be read (missing or not readable)");
  }
  if (S_ISDIR(info.st_mode)) throwInvalid(who + ": is a directory, not a file");
  const auto tooLarge = [&] {
    throwInvalid(fmt::format("{}: larger than {} MiB; ringlab reads inputs up to that size", who,
                             maxBytes >> 20));
  };
  if (S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_size) > maxBytes) tooLarge();
  std::ifstream in(path, std::ios::binary);
  if (!in) throwInvalid(who + ": cannot be read (missing or not readable)");
  // Not only regular files (a pipe, /dev/stdin, /dev/zero): read in pieces, never past the bound.
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > maxBytes) tooLarge();
  }
  if (in.bad()) throwInvalid(who + ": read error");
  return text;
}

}  // namespace ringlab
