#pragma once
// Binomial trees over p ranks, numbered from a root: in round k of a reduce, each rank at relative
// position v (its distance from the root, r - root mod p) with v mod 2^(k+1) = 2^k sends its
// partial result to the rank at v - 2^k, which reduces it in; a broadcast runs the same tree in
// reverse, copying. ceil(lg p) steps each, for any p, the whole vector per transfer (a single
// block). AllReduce is a reduce to rank 0 followed by a broadcast from it: 2 ceil(lg p) steps;
// rank 0 sends and receives the most, so it suits small messages only.
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

Schedule binomialTreeReduce(int ranks, int root);
Schedule binomialTreeBroadcast(int ranks, int root);
Schedule binomialTreeAllReduce(int ranks);

}  // namespace ringlab::schedule
