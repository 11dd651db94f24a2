#include "ringlab/io/mpi_version.hpp"

#include <cstdio>

#include "ringlab/core/error.hpp"

namespace ringlab::io {
namespace {

// What `command` prints on standard output (at most 1 MiB), "" when it cannot be run.
std::string outputOf(const char* command) {
  FILE* pipe = popen(command, "r");
  if (!pipe) return "";
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
    if (text.size() < (1u << 20)) text.append(buffer, n);
  }
  pclose(pipe);
  return text;
}

model::LibraryVersion installedOr(const std::string& given, const std::string& option,
                                  const char* command, const std::string& library,
                                  std::optional<model::LibraryVersion> (*read)(std::string_view)) {
  if (!given.empty()) return model::parseLibraryVersion(given, option);
  if (auto v = read(outputOf(command))) return *v;
  throwInvalid(option + ": no " + library + " found here to tell which release will read the " +
               "file (`" + std::string(command).substr(0, std::string(command).find(' ')) +
               "` printed no version); give " + option + " X.Y.Z");
}

}  // namespace

model::LibraryVersion openMpiVersion(const std::string& given, const std::string& option) {
  return installedOr(given, option, "ompi_info --parsable 2>/dev/null", "Open MPI",
                     model::openMpiVersionFromOmpiInfo);
}

model::LibraryVersion mpichVersion(const std::string& given, const std::string& option) {
  return installedOr(given, option, "mpichversion 2>/dev/null", "MPICH",
                     model::mpichVersionFromMpichversion);
}

}  // namespace ringlab::io
