#pragma once
// Recursive-doubling AllReduce (Thakur, Rabenseifner & Gropp 2005): lg p steps in which partners at
// distance 1, 2, 4, ... exchange their whole vectors and both reduce. Few steps, n bytes each: the
// latency-bound choice for small messages. For p not a power of two, MPICH's fold (see
// power_of_two_fold.hpp in src/schedule) adds one step before and one after: lg p' + 2 steps.
// The schedule has a single block: every transfer moves the whole vector.
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

Schedule recursiveDoublingAllReduce(int ranks);

}  // namespace ringlab::schedule
