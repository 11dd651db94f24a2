#pragma once
// Numbers in error messages and summaries, without pulling a formatting library into libringlab.
#include <cstdio>
#include <string>

namespace ringlab::topo {

// Shortest readable form: 2.5e+10, 0.001, 8.
inline std::string num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

inline std::string num(long long value) {
  return std::to_string(value);
}
inline std::string num(int value) {
  return std::to_string(value);
}
inline std::string num(std::size_t value) {
  return std::to_string(value);
}

}  // namespace ringlab::topo
