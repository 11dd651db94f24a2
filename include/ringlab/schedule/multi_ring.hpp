#pragma once
// Multi-ring AllReduce (NCCL's channels): k rings ("channels") run in the same 2(p-1) steps, each
// carrying 1/k of the data over its own ring order, so that k different sets of links (or both
// directions of each link) are busy at once. Per-rank volume is the ring's, 2(p-1)/p n; each step
// moves k smaller blocks instead of one.
//
// Block layout: blocks = k*p; channel c runs a plain ring (ring.hpp, with the same ownership
// offset) over blocks [c*p, (c+1)*p). The partition keeps all k*p chunks within one element of
// each other, so the channels carry equal shares.
//
// Schedule::ringOrder stays empty: there are k orders, given by multiRingOrders.
#include <vector>

#include "ringlab/schedule/ring_order.hpp"
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

inline constexpr int kMaxChannels = 32;  // NCCL's own channel limit

// The k channel orders. `explicitOrders`, when not empty, must hold exactly k permutations of
// 0..p-1 and is used as given. Otherwise the orders are derived from `base` (empty: 0..p-1):
//   channel 0 = base;  channel 1 = base reversed (every link used in the other direction);
//   channels 2j and 2j+1 (j >= 1) = base walked with stride a_j, and that ring reversed, where
//   a_1 < a_2 < ... are the strides 2 <= a < p/2 coprime with p (stride p-a is stride a reversed,
//   so no other stride gives a new ring);
//   when these run out (always for p <= 4), channel c repeats derived channel c mod their number.
// Throws InvalidArgument for k outside 1..kMaxChannels or an order that is not a permutation.
std::vector<RingOrder> multiRingOrders(int ranks, int channels,
                                       const std::vector<std::vector<int>>& explicitOrders,
                                       const std::vector<int>& base);

// One ring per order (all over the same p ranks), each with ownership offset `offset`.
Schedule multiRingAllReduce(const std::vector<RingOrder>& channels, int offset = 0);

}  // namespace ringlab::schedule
