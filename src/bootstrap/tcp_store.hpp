#pragma once
// The TCP rendezvous store: rank 0 serves it (a thread owned by rank 0's Store object), every
// rank including rank 0 is a client. Internal; reached through openStore("tcp://HOST:PORT").
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "ringlab/bootstrap/store.hpp"

namespace ringlab::bootstrap {

struct TcpStoreOptions {
  std::string host;
  std::uint16_t port = 0;
  bool serve = false;  // rank 0: listen on host:port (that interface only)
  int rank = 0;
  int size = 1;
  std::string token;
  std::chrono::milliseconds timeout{60'000};  // connecting, handshake, and each set
};

// Rank 0's store must outlive the rendezvous: destroy it only after every rank is done with the
// store (a final barrier does it).
std::unique_ptr<Store> openTcpStore(const TcpStoreOptions& options);

}  // namespace ringlab::bootstrap
