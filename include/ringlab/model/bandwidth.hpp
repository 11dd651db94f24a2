#pragma once
// Bandwidths as nccl-tests reports them, in one place for every table and record (bench, sim,
// compare): algbw = size / time, busbw = algbw x 2(p-1)/p (AllReduce: the bytes each rank sends
// per byte of the buffer). GB/s = 1e9 B/s.
#include <cstdint>

namespace ringlab::model {

// 2(p-1)/p: AllReduce's bus factor (0 for one rank, which sends nothing).
inline double allReduceBusFactor(int p) {
  return p > 1 ? 2.0 * (p - 1) / p : 0.0;
}

// Bytes per microsecond / 1e3 = GB/s; 0 for a time that is not positive (nothing was timed).
inline double algbwGBps(std::uint64_t bytes, double timeUs) {
  return timeUs > 0 ? static_cast<double>(bytes) / (timeUs * 1e3) : 0.0;
}

inline double allReduceBusbwGBps(std::uint64_t bytes, double timeUs, int p) {
  return algbwGBps(bytes, timeUs) * allReduceBusFactor(p);
}

}  // namespace ringlab::model
