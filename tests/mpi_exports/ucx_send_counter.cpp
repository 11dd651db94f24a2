// Loaded with LD_PRELOAD into an MPICH (ch4:ucx) process: counts the point-to-point messages
// MPICH hands to UCX (ucp_tag_send_nbx, ucp_tag_send_sync_nbx), and their bytes, per endpoint
// (one endpoint per peer), then passes each call on to UCX unchanged. MPICH's collectives send
// through the same calls, so the count inside one MPI_Allreduce is the algorithm's traffic.
// allreduce_probe.cpp calls ringlab_send_counter_mark around each call; it prints one line per
// endpoint used: "<label> rank R ep E msgs M bytes B".
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace {

using Send = void* (*)(void*, const void*, std::size_t, std::uint64_t, const void*);
constexpr int kMaxEndpoints = 256;
void* endpoints[kMaxEndpoints];
std::size_t messages[kMaxEndpoints], bytes[kMaxEndpoints];
int used = 0;

void count(void* endpoint, std::size_t length) {
  int i = 0;
  while (i < used && endpoints[i] != endpoint) ++i;
  if (i == kMaxEndpoints) return;
  if (i == used) endpoints[used++] = endpoint;
  ++messages[i];
  bytes[i] += length;
}

// The next definition of `name` after this library's: UCX's own.
Send real(const char* name) {
  return reinterpret_cast<Send>(dlsym(RTLD_NEXT, name));
}

}  // namespace

// UCX's signatures (ucp.h), with its handle types as the pointers they are; `count` is bytes
// for MPICH's contiguous sends.
extern "C" void* ucp_tag_send_nbx(void* ep, const void* buffer, std::size_t count,
                                  std::uint64_t tag, const void* param) {
  static const Send next = real("ucp_tag_send_nbx");
  ::count(ep, count);
  return next(ep, buffer, count, tag, param);
}

extern "C" void* ucp_tag_send_sync_nbx(void* ep, const void* buffer, std::size_t count,
                                       std::uint64_t tag, const void* param) {
  static const Send next = real("ucp_tag_send_sync_nbx");
  ::count(ep, count);
  return next(ep, buffer, count, tag, param);
}

// label null: start counting afresh; else print what was counted since, under `label`.
extern "C" void ringlab_send_counter_mark(int rank, const char* label) {
  for (int i = 0; i < used; ++i) {
    if (label && messages[i])
      std::printf("%s rank %d ep %d msgs %zu bytes %zu\n", label, rank, i, messages[i], bytes[i]);
    messages[i] = bytes[i] = 0;
  }
  std::fflush(stdout);
}
