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

struct TcpOptions {
  std::string bindHost = "127.0.0.1";
  std::string token;                          // every connection must present it
  std::chrono::milliseconds timeout{60'000};  // for setting up (listen, connect, handshake)
};

// Collective over the `size` ranks: each calls it with its rank and the same store.
std::unique_ptr<Transport> connectTcp(int rank, int size, bootstrap::Store& store,
                                      const TcpOptions& options);

}  // namespace ringlab::transport
