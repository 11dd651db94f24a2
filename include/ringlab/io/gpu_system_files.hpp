#pragma once
// A GPU system from where the user names it: a spec or preset (gpu/system_spec.hpp), or an NCCL
// topology file with spec keys beside it; the one place that reads a GPU system's file.
#include <optional>
#include <string>

#include "ringlab/gpu/system.hpp"
#include "ringlab/io/topology_files.hpp"

namespace ringlab::io {

struct GpuSystemSource {
  std::string spec;          // a preset or keys; with ncclFile, keys only (gpu=h100,nodes=2)
  std::string ncclFile;      // NCCL_TOPO_DUMP_FILE or NCCL_TOPO_FILE XML: one node
  std::optional<int> nodes;  // scales the system to this many nodes
  bool given() const { return !spec.empty() || !ncclFile.empty(); }
};

// Throws InvalidArgument naming the spec or file and what is wrong.
gpu::GpuSystem loadGpuSystem(const GpuSystemSource& source);

// A GPU system in place of a topology (`sim` and `topo search|show` on a system): the system at
// `where.ranks` GPUs when that is set, drawn into `where` as the topology the simulator and the
// ring search price (gpu::topologySpec; `where.ranks` then 0, every slot). Throws InvalidArgument,
// from gpu::withRanks, when the system's nodes cannot hold that many GPUs.
gpu::GpuSystem drawAsTopology(const gpu::GpuSystem& system, TopologySource& where);

}  // namespace ringlab::io
