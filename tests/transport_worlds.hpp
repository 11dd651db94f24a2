#pragma once
// p ranks as threads of this process over a chosen transport ("inproc", "shm", "tcp"), for the
// tests that must hold on every transport. Transports that need a rendezvous meet through an
// in-process store; each rank connects on its own thread, as connecting is collective.
//
// Header-only; functions are inline because several test files include it.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ringlab/bootstrap/store.hpp"
#include "ringlab/communicator.hpp"
#include "ringlab/transport/inproc.hpp"
#include "ringlab/transport/shm.hpp"
#include "ringlab/transport/tcp.hpp"

namespace ringlab::test {

// "shm_single_copy": shm with the single-copy threshold at 1000 bytes, so that one call mixes
// messages read straight from the sender's buffer (ranks are threads: any address) with messages
// copied through the slots. tcp_channels: tcp with three connections per pair of ranks (so that
// consecutive segments of a transfer, and consecutive messages, travel on different connections),
// fixed socket buffers, and reducing receives that combine out of staging as bytes arrive
// (elements split across reads).
inline std::vector<std::string> worldKinds() {
  return {"inproc", "shm", "shm_single_copy", "tcp", "tcp_channels"};
}

inline std::unique_ptr<transport::Transport> connectRank(const std::string& kind, int rank, int p,
                                                         bootstrap::Store& store) {
  if (kind == "shm") return transport::connectShm(rank, p, store, {"", std::chrono::seconds(10)});
  if (kind == "shm_single_copy") {
    return transport::connectShm(rank, p, store, {"", std::chrono::seconds(10), 1000});
  }
  if (kind == "tcp" || kind == "tcp_channels") {
    transport::TcpOptions options{"127.0.0.1", "contract-test-token", std::chrono::seconds(10)};
    if (kind == "tcp_channels") {
      options.channels = 3;
      options.socketBufferBytes = 256 * 1024;
      options.reduceOnReceive = true;
    }
    return transport::connectTcp(rank, p, store, options);
  }
  throw Error(ErrorCode::Internal, "no such test world: " + kind);
}

// Runs fn(communicator) on every rank's thread, as it is: fn handles its own exceptions.
inline void runOnWorldCatching(const std::string& kind, int p,
                               const std::function<void(Communicator&)>& fn) {
  std::unique_ptr<transport::InprocWorld> inproc;
  std::vector<std::unique_ptr<transport::Transport>> owned(p);
  std::vector<transport::Transport*> transports(p);
  if (kind == "inproc") {
    inproc = std::make_unique<transport::InprocWorld>(p);
    for (int r = 0; r < p; ++r) transports[r] = &inproc->transport(r);
  } else {
    auto store = bootstrap::makeMemoryStore();
    std::vector<std::thread> connecting;
    std::mutex failureMutex;
    std::string failure;
    for (int r = 0; r < p; ++r) {
      connecting.emplace_back([&, r] {
        try {
          owned[r] = connectRank(kind, r, p, *store);
          transports[r] = owned[r].get();
        } catch (const std::exception& e) {
          std::lock_guard lock(failureMutex);
          failure = e.what();
        }
      });
    }
    for (auto& t : connecting) t.join();
    ASSERT_TRUE(failure.empty()) << "connecting " << kind << ": " << failure;
  }
  std::vector<std::thread> ranks;
  for (int r = 0; r < p; ++r) {
    ranks.emplace_back([&, r] {
      Communicator comm(*transports[r]);
      fn(comm);
    });
  }
  for (auto& t : ranks) t.join();
}

// Runs fn(communicator) on every rank's thread. A rank that throws has already aborted its
// transport (the Communicator does), so the others fail promptly instead of waiting for it; the
// exception becomes a test failure.
inline void runOnWorld(const std::string& kind, int p,
                       const std::function<void(Communicator&)>& fn) {
  runOnWorldCatching(kind, p, [&](Communicator& comm) {
    try {
      fn(comm);
    } catch (const Error& e) {
      ADD_FAILURE() << kind << " rank " << comm.rank() << ": " << e.what();
    }
  });
}

}  // namespace ringlab::test
