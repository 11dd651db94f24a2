#pragma once
// Ring collectives as schedules (Patarasuk & Yuan 2009; the seed's description). With p ranks the
// buffer is split into p blocks; the rank at ring position i ends the reduce-scatter owning block
// order[(i + offset) mod p], so offset 0 gives every rank r block r (NCCL's reduce-scatter layout).
//
// The "segmented ring" (pipelined ring) is this same schedule: the executor cuts every transfer
// into segments of ExecOptions::segmentBytes and overlaps the reduction of one segment with the
// transfer of the next, so it needs no schedule of its own. Segmentation changes the time, never
// the steps, the blocks or the volume.
//
// The phase builders below are the ring's one implementation: the plain ring, multi_ring (several
// rings in the same steps on disjoint blocks) and hierarchical (rings inside and across nodes) all
// place rings with them, so the ring index arithmetic is written here once.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/schedule/ring_order.hpp"
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

// Where one ring runs inside a larger schedule. Its RingOrder orders member indices 0..n-1 (n = the
// ring's size); `members` maps a member index to a rank of the schedule. Block labels are member
// indices: label j covers blocks [firstBlock + j*blocksPerLabel, firstBlock +
// (j+1)*blocksPerLabel).
struct RingSlice {
  std::vector<int> members;  // empty: member j is rank j
  std::uint32_t firstBlock = 0;
  std::uint32_t blocksPerLabel = 1;
  std::string scope;  // prefixes the phase names, e.g. "intra-node "
};

// Adds a ring reduce-scatter (n-1 steps, each member sends one label to its successor, which
// reduces it) whose steps join s.steps[firstStep ...], appending steps as needed, so that rings
// placed at the same steps run concurrently. Returns the index of the step after the phase.
std::size_t addRingReduceScatter(Schedule& s, const RingOrder& order, int offset,
                                 const RingSlice& slice, std::size_t firstStep);
// Adds the matching allgather: each label is copied around the ring from the member that owns it
// after addRingReduceScatter with the same order and offset.
std::size_t addRingAllGather(Schedule& s, const RingOrder& order, int offset,
                             const RingSlice& slice, std::size_t firstStep);

// p-1 steps; each rank sends one block per step to its ring successor, which reduces it.
Schedule ringReduceScatter(const RingOrder& order, int offset = 0);
// p-1 steps; each block is copied around the ring from its owner.
Schedule ringAllGather(const RingOrder& order, int offset = 0);
// Reduce-scatter then allgather: 2(p-1) steps.
Schedule ringAllReduce(const RingOrder& order, int offset = 0);

}  // namespace ringlab::schedule
