#pragma once
// Small text helpers for the planner's error messages (the library does not link fmt).
#include <cstdio>
#include <string>

namespace ringlab::plan::detail {

// A number as a person reads it: up to 6 significant digits.
inline std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Seconds shown as microseconds, the unit timelines are written in.
inline std::string micros(double seconds) {
  return num(seconds * 1e6) + " us";
}

}  // namespace ringlab::plan::detail
