#pragma once
// The one place that turns an algorithm name and its parameters into a Schedule, for the CLI,
// the Communicator and the lab alike.
#include <string>
#include <vector>

#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

struct AlgorithmSpec {
  std::string name = "ring";
  std::vector<int> ringOrder;  // empty: ranks in order 0..p-1
  int ownershipOffset = 0;     // ring: which block each rank ends the reduce-scatter owning
};

// The algorithm names ringlab knows, as accepted by --algo.
const std::vector<std::string>& algorithmNames();

// Builds and verifies the schedule; throws InvalidArgument naming the bad value.
Schedule buildSchedule(Collective collective, int ranks, const AlgorithmSpec& spec);

}  // namespace ringlab::schedule
