#pragma once
// What a run's record says about where its ranks ran (RunInfo's topology and placement).
#include <string>

#include "ringlab/io/topology_files.hpp"

namespace ringlab::measure {

struct LaunchDescription {
  std::string topology, placement;
};

// When the user named no topology: what the transport table says of the transport (inproc and
// shm ranks share one host, tcp ranks may span hosts, mpirun placed MPI's).
LaunchDescription describeLaunch(const std::string& transport);
// The machine the user named instead, when `named` gives a generated topology, a topology file or
// an NCCL file: it must hold `ranks` ranks as placed (io::loadTopology's errors otherwise).
LaunchDescription describeLaunch(const std::string& transport, io::TopologySource named, int ranks);

}  // namespace ringlab::measure
