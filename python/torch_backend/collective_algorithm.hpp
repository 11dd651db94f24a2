#pragma once
// The group's algorithm (RINGLAB_TORCH_ALGORITHM) names the AllReduce algorithm. The other
// collectives run it where it builds them and their own default elsewhere, so that naming
// recursive_doubling, which builds AllReduce only, leaves all_gather on the ring.
#include <string>

#include "ringlab/communicator.hpp"
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::torch_backend {

// Throws InvalidArgument unless `name` is auto or an algorithm that builds AllReduce at p =
// `ranks` from its name alone, naming the valid ones.
void checkAllReduceAlgorithm(const std::string& name, int ranks);

// `call` (the group's options) for a call that runs `collective`.
CollectiveOptions optionsFor(schedule::Collective collective, CollectiveOptions call);

}  // namespace ringlab::torch_backend
