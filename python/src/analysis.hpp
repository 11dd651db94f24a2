#pragma once
// What the analysis parts share: the library's warnings as Python warnings.
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "ringlab/gpu/system.hpp"
#include "ringlab/io/gpu_system_files.hpp"
#include "ringlab/io/model_files.hpp"
#include "ringlab/io/topology_files.hpp"

namespace ringlab::python {

// Each line as a UserWarning (where the CLI prints "ringlab: <line>" on stderr).
void warn(const std::vector<std::string>& warnings);

// The package's keyword arguments, as the library's labels for the model's inputs.
const io::ModelLabels& modelKeywords();

// io::resolveModel, its convention warnings raised as UserWarning.
io::ResolvedModel resolveAndWarn(const io::ModelSource& source);

// system= in place of topo=, topo_file= and nccl_topo= (io::drawGpuSystem), its errors prefixed
// with the keyword that gave the system. None when system= was not given.
std::optional<gpu::GpuSystem> systemAsTopology(const io::GpuSystemSource& system,
                                               io::TopologySource& where);

}  // namespace ringlab::python
