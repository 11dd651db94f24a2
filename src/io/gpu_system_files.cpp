#include "ringlab/io/gpu_system_files.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/gpu/from_nccl_topology.hpp"
#include "ringlab/gpu/system_spec.hpp"
#include "ringlab/gpu/system_topology.hpp"
#include "ringlab/topo/nccl_xml.hpp"

namespace ringlab::io {

gpu::GpuSystem loadGpuSystem(const GpuSystemSource& source) {
  gpu::GpuSystem system;
  if (!source.ncclFile.empty()) {
    const std::string text = readTextFile(source.ncclFile, "the NCCL topology", kNcclTopologyInput);
    const topo::NcclImport import = topo::importNcclTopology(text, source.ncclFile, 1, 2e-6);
    system = gpu::systemFromNcclTopology(import.summary, source.ncclFile, source.spec);
  } else if (!source.spec.empty()) {
    system = gpu::parseSystem(source.spec);
  } else {
    throwInvalid("no GPU system: give a preset, a spec or an NCCL topology file");
  }
  if (source.nodes) {
    system = gpu::refineSystem(std::move(system), "nodes=" + std::to_string(*source.nodes),
                               "the GPU system at " + std::to_string(*source.nodes) + " nodes");
  }
  return system;
}

gpu::GpuSystem drawAsTopology(const gpu::GpuSystem& system, TopologySource& where) {
  const gpu::GpuSystem placed = where.ranks > 0 ? gpu::withRanks(system, where.ranks) : system;
  where.ranks = 0;  // every slot of the drawn system
  where.generated = topo::parseTopologySpec(gpu::topologySpec(placed), where.labels.spec);
  return placed;
}

}  // namespace ringlab::io
