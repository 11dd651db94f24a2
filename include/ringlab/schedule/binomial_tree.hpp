#pragma once
// Binomial-tree AllReduce: a binomial reduce to rank 0 (in round k, each rank r with
// r mod 2^(k+1) = 2^k sends its partial result to r - 2^k, which reduces it) followed by a
// binomial broadcast from rank 0 (the same tree in reverse, copying). 2 ceil(lg p) steps for any
// p, whole vector per transfer (a single block); rank 0 sends and receives the most, so it suits
// small messages only.
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

Schedule binomialTreeAllReduce(int ranks);

}  // namespace ringlab::schedule
