#pragma once
// Ring collectives as schedules (Patarasuk & Yuan 2009; the seed's description). With p ranks the
// buffer is split into p blocks; the rank at ring position i ends the reduce-scatter owning block
// order[(i + offset) mod p], so offset 0 gives every rank r block r (NCCL's reduce-scatter layout).
#include "ringlab/schedule/ring_order.hpp"
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

// p-1 steps; each rank sends one block per step to its ring successor, which reduces it.
Schedule ringReduceScatter(const RingOrder& order, int offset = 0);
// p-1 steps; each block is copied around the ring from its owner.
Schedule ringAllGather(const RingOrder& order, int offset = 0);
// Reduce-scatter then allgather: 2(p-1) steps.
Schedule ringAllReduce(const RingOrder& order, int offset = 0);

}  // namespace ringlab::schedule
