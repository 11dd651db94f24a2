#include "ringlab/core/process.hpp"

#include <cstdio>
#include <cstring>

namespace ringlab {

bool isProcessStopped(int pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE* file = std::fopen(path, "r");
  if (!file) return false;
  char line[512] = {};
  const std::size_t n = std::fread(line, 1, sizeof line - 1, file);
  std::fclose(file);
  // "pid (name) S ...": the state letter follows the last ')', as the name may hold one too.
  const char* close = std::strrchr(line, ')');
  return n > 0 && close && close[1] == ' ' && (close[2] == 'T' || close[2] == 't');
}

}  // namespace ringlab
