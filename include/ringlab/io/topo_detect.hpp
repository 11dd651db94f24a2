#pragma once
// `ringlab topo detect`: the local machine as a one-node topology, from hwloc. hwloc knows what is
// there (cores, GPUs, NICs, and which are near which) but not how fast the links are, so the
// bandwidths are the caller's (stated as assumptions wherever the result is printed).
#include <string>

#include "ringlab/topo/topology.hpp"

namespace ringlab::io {

struct DetectOptions {
  std::string slots = "auto";  // auto (GPUs if any, else cores), gpus, cores
  double intra_Bps = 20e9;     // each slot's link to the node's fabric
  double nic_Bps = 12.5e9;     // each slot's link to a NIC
  // The caller's names for the slots choice and the two bandwidths, in errors and notes (labels:
  // see model_files.hpp).
  std::string slotsWhat = "the slots", intraWhat = "the slots' bandwidth",
              nicWhat = "the NIC bandwidth";
};

// Throws Error(Internal) when hwloc fails, InvalidArgument for a bad option or when ringlab was
// built without hwloc.
topo::Topology detectLocalTopology(const DetectOptions& options, std::string& notes);

}  // namespace ringlab::io
