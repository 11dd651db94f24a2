#pragma once
// Rabenseifner's AllReduce (Thakur, Rabenseifner & Gropp 2005): a reduce-scatter by recursive
// halving (partners at distance p/2, p/4, ..., 1 each send the half of their current window that
// the partner keeps, and reduce the half they keep), then an allgather by recursive doubling
// (distance 1, 2, ..., p/2, copying). 2 lg p steps and 2(p-1)/p n bytes sent per rank: the ring's
// volume with logarithmic steps, for power-of-two p.
//
// Block layout: blocks = p', the largest power of two <= p, so every halving splits a window of
// blocks exactly, and the partition (chunks differing by at most one element) keeps the halves
// balanced for any count. Core rank c ends the reduce-scatter owning block c. MPICH instead split
// element counts by halving them, which left uneven pieces at some p (MPICH PR 2639, p = 13).
// For p not a power of two, MPICH's fold adds one step before and one after (2 lg p' + 2 steps).
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

Schedule rabenseifnerAllReduce(int ranks);

}  // namespace ringlab::schedule
