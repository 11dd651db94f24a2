#pragma once
// A GPU system drawn as a topology the flow simulator and the ring search price (topo/
// generators.hpp), and the rings NCCL's search builds on it: what `ringlab sim --system` runs and
// what `ringlab topo search --system` holds its rings against.
#include <string>
#include <vector>

#include "ringlab/gpu/system.hpp"
#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/schedule/ring_order.hpp"
#include "ringlab/topo/ring_report.hpp"

namespace ringlab::gpu {

// The generator spec of the system as the job uses it (ranks per node, nodes): each GPU joined to
// its node's fabric at intraBandwidth_Bps, to its NIC at the PCIe figure, NICs on one switch at
// the NIC speed; hop latencies from NCCL's Ring Simple hardware latencies. The node's fabric is a
// switch: exact for NVSwitch, generous for an NVLink mesh or a PCIe tree (topologyNote says so).
std::string topologySpec(const GpuSystem& system);

// What the drawing leaves out, one sentence.
std::string topologyNote(const GpuSystem& system);

// The `channels` rings NCCL's ring search builds on a rail-optimised system (ranks numbered node by
// node, as nccl-tests places them): channel c takes NIC c mod (NICs in use); on every node the ring
// enters at the first GPU of that NIC, visits the GPUs of other NICs in descending order, and
// leaves from the last GPU of the same NIC, so a channel's traffic stays on one rail (the pattern
// NCCL_DEBUG=INFO prints, "Channel 00/08 : 0 7 6 5 4 3 2 1 8 15 ..."). On one node: channel c
// starts at GPU c and goes up. Throws InvalidArgument for channels outside 1..kMaxChannels.
std::vector<schedule::RingOrder> ncclRings(const GpuSystem& system, int channels);

// The ring channels NCCL's search finds on the system (as NcclModel abstracts it): the rings a GPU
// user's AllReduce runs on, and so the count a simulation or ring search on the system defaults to.
int ncclRingChannels(const GpuSystem& system);

// multi_ring on NCCL's rings, `channels` of them (0: NCCL's own count): what a simulation runs on
// the system unless told another algorithm.
schedule::AlgorithmSpec ncclMultiRing(const GpuSystem& system, int channels = 0);

// NCCL's rings as the reference a ring search on the system is held against: as many as the
// rings priced (`channels`, or NCCL's count when 0).
topo::ReferenceRings ncclReferenceRings(const GpuSystem& system, int channels = 0);

}  // namespace ringlab::gpu
