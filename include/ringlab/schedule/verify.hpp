#pragma once
// Symbolic verification: tracks, for every rank and block, the set of ranks whose contribution the
// block holds, through every step. A schedule is valid when, at the end, every block that must be
// complete holds each of the p contributions exactly once, and no step reads a block the sender
// does not hold, reduces a contribution in twice, or writes one block twice ambiguously.
#include <string>

#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

struct Verdict {
  bool valid = false;
  std::string reason;  // empty when valid; otherwise the first problem found, with step and ranks
};

Verdict verify(const Schedule& schedule);

// Throws Error(InvalidArgument) with the verdict's reason when the schedule is not valid.
void verifyOrThrow(const Schedule& schedule);

}  // namespace ringlab::schedule
