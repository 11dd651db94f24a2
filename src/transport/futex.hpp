#pragma once
// Sleeping on a 32-bit word until another thread or process changes it. Shared-memory waits
// (`shared` = true) work across processes that map the same page; private ones are cheaper
// inside one process.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <ctime>

namespace ringlab::transport {

// Sleeps while *word == expected, at most `nanoseconds`; returns early on a wake or a change.
inline void futexWait(std::atomic<std::uint32_t>* word, std::uint32_t expected, long nanoseconds,
                      bool shared) {
  timespec ts{nanoseconds / 1000000000L, nanoseconds % 1000000000L};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word),
          shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, expected, &ts, nullptr, 0);
}

inline void futexWakeAll(std::atomic<std::uint32_t>* word, bool shared) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word),
          shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace ringlab::transport
