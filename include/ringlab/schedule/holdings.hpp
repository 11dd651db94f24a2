#pragma once
// For every rank and block, whose contributions the block holds, after each step of a schedule,
// with the step semantics schedule.hpp states (sends read the state before the step; a reduce
// adds the sender's set, a copy replaces the receiver's). verify() proves a schedule at any p
// without keeping these states; this keeps them, for drawing (the lab's step-by-step view) and
// for explaining. Small p only: a set is a bit mask.
#include <cstdint>
#include <vector>

#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

// holds[r][b]: bit q set when rank r's block b includes rank q's contribution.
using Holdings = std::vector<std::vector<std::uint32_t>>;

// The initial state and the state after each step: steps.size() + 1 entries. Throws
// Error(InvalidArgument) when p is above 32 (the width of a mask).
std::vector<Holdings> holdingsAfterEachStep(const Schedule& schedule);

}  // namespace ringlab::schedule
