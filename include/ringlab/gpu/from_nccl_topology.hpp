#pragma once
// A GPU system from what an NCCL topology file says of one node (topo::importNcclTopology's
// summary): its GPUs, their NVLinks or PCIe, its NICs and their speeds, its sockets. What the file
// leaves to the driver is not guessed: a file that names no GPU model (the NCCL_TOPO_FILE form,
// whose GPUs are bare <pci> devices) needs the GPU kind given beside it (gpu=h100), and NCCL's
// defaults for anything else it omits are listed among the system's assumptions.
#include <string>
#include <string_view>

#include "ringlab/gpu/system.hpp"
#include "ringlab/topo/nccl_xml.hpp"

namespace ringlab::gpu {

// `keys` are spec keys (gpu/system_spec.hpp, no preset) applied on top: the GPU kind where the
// file has none, nodes, the network's kind. Throws InvalidArgument naming `source` when the file
// names no GPU model and `keys` give none.
GpuSystem systemFromNcclTopology(const topo::NcclImportSummary& summary, const std::string& source,
                                 std::string_view keys);

}  // namespace ringlab::gpu
