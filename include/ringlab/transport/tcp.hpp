#pragma once
// TCP transport: ranks on any hosts. Every rank listens on `bindHost` (an ephemeral port),
// publishes its address in the rendezvous store, and connects to every peer it exchanges with;
// each connection is authenticated with the job token before any data moves. Messages travel
// as frames with a validated header.
#include <chrono>
#include <memory>
#include <string>

#include "ringlab/bootstrap/store.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::transport {

// Most connections per pair of ranks (RINGLAB_TCP_CHANNELS).
inline constexpr int kMaxTcpChannels = 16;

struct TcpOptions {
  std::string bindHost = "127.0.0.1";
  std::string token;                          // every connection must present it
  std::chrono::milliseconds timeout{60'000};  // for setting up (listen, connect, handshake)
  // Connections per pair of ranks. The n-th message between two ranks travels on connection
  // n mod channels, so the segments of a large transfer share out over all of them while each
  // connection stays in posting order. Every rank must use the same number.
  int channels = 1;
  // SO_SNDBUF and SO_RCVBUF of every connection, in bytes; 0 leaves them to the kernel's
  // autotuning. The kernel caps them at net.core.wmem_max and rmem_max.
  std::uint64_t socketBufferBytes = 0;
  // Reducing receives combine each piece of a payload as it arrives, out of the connection's
  // small staging buffer (still in cache), instead of landing whole segments in the executor's
  // scratch and combining them afterwards.
  bool reduceOnReceive = false;
};

// Takes channels from RINGLAB_TCP_CHANNELS (1..kMaxTcpChannels), socketBufferBytes from
// RINGLAB_TCP_SOCKET_BUFFER (a size such as 4M; 0: the kernel's autotuning) and reduceOnReceive
// from RINGLAB_TCP_REDUCE_ON_RECEIVE (0 or 1) where they are set.
// Throws InvalidArgument naming the variable, its value and what is valid.
void applyTcpEnvironment(TcpOptions& options);

// Collective over the `size` ranks: each calls it with its rank and the same store.
std::unique_ptr<Transport> connectTcp(int rank, int size, bootstrap::Store& store,
                                      const TcpOptions& options);

}  // namespace ringlab::transport
