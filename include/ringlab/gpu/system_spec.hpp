#pragma once
// GPU systems from one line, and the named presets.
//
//   dgx-h100,nodes=4                 a preset, scaled to 4 nodes
//   gpu=h100,gpus=8,nics=8,nic=400Gb/s,nodes=2
//   gpu=rtx4090,gpus=4,p2p=no        a PCIe box without peer to peer
//
// Keys (every figure of a preset can be overridden by naming it):
//   gpu      the GPU kind (h100, a100, rtx4090, ...: gpuKindKeys()); sets sm, the fabric, NVLinks
//   sm       compute capability x 10 (90)      gpus   GPUs per node       nodes  nodes
//   intra    nvswitch | nvlink | pcie | xgmi   nvlinks  NVLinks per GPU   link   one link's speed
//   pcie     gen3x16, gen4x16, gen5x16 ...     p2p    yes | no (PCIe peer to peer)
//   nics     NICs per node the job uses        nic    one NIC's speed (400Gb/s)
//   net      ib | roce | efa | slingshot | tcp gdr    yes | no (GPUDirect RDMA)
//   nvls     yes | no (NVLink SHARP)           sharp  yes | no (in-network reduction, CollNet)
//   pcie_switch  GPUs behind one PCIe switch's uplink (1: each GPU on its own root port)
//   sockets  CPU sockets the GPUs hang under   socket_link  the link between them (16GB/s)
//   algo     NCCL_ALGO as the run set it, '+' for its ',' (ring, ring+tree, ^nvls): the model
//            prices only what it leaves      proto  NCCL_PROTO likewise (ll128+simple)
//   name     the system's name in output
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/gpu/system.hpp"

namespace ringlab::gpu {

struct Preset {
  const char* key;     // "dgx-h100"
  const char* title;   // "NVIDIA DGX H100"
  const char* spec;    // in the grammar above, one node
  const char* source;  // the public page its figures come from
};
const std::vector<Preset>& presets();

// The system a spec describes. Throws InvalidArgument "the GPU system '<spec>': <what> (<what is
// valid>)" for an unknown preset or key, a key given twice, a value out of range, or a spec with
// neither a preset nor gpu= or sm=.
GpuSystem parseSystem(std::string_view spec);

// `base` with the keys of `keys` (no preset) applied, checked as parseSystem checks; `what` names
// the whole in errors ("the GPU system 'file.xml + gpu=h100'").
GpuSystem refineSystem(GpuSystem base, std::string_view keys, const std::string& what);

}  // namespace ringlab::gpu
