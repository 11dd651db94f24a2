#pragma once
// This process as one rank of a job: its transport, from the rank environment (a launcher or
// torchrun-style variables: bootstrap/rendezvous.hpp) for shm and tcp, or from MPI under mpirun.
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "ringlab/bootstrap/rendezvous.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::job {

// The transports whose ranks are processes, and which the launcher can start.
bool isProcessTransport(const std::string& kind);  // shm, tcp, mpi
bool isLaunchable(const std::string& kind);        // shm, tcp

struct RankWorld {
  std::unique_ptr<bootstrap::Store> store;  // kept open while the transport lives
  std::unique_ptr<transport::Transport> transport;
};

// Connects this process. For shm and tcp the rank environment must be set; throws
// InvalidArgument otherwise, saying how to launch.
RankWorld connectRankWorld(const std::string& kind, std::chrono::milliseconds timeout);

}  // namespace ringlab::job
