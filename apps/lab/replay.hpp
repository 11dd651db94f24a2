#pragma once
// What panel 2 draws between steps: for every rank and block, whose contributions the block holds,
// after each step of a schedule, replayed with the step semantics schedule.hpp states (sends read
// the state before the step; a reduce adds the sender's set, a copy replaces the receiver's).
// schedule::verify proves the schedule; this only records the states it passes through, which the
// verifier keeps private, for drawing. Small p only: a set is a bit mask.
#include <cstdint>
#include <vector>

#include "ringlab/schedule/schedule.hpp"

namespace ringlab::lab {

// holds[r][b]: bit q set when rank r's block b includes rank q's contribution.
using Holdings = std::vector<std::vector<std::uint32_t>>;

// The initial state and the state after each step: steps.size() + 1 entries. Throws
// Error(InvalidArgument) when p is above 32 (the width of a mask).
std::vector<Holdings> replayHoldings(const schedule::Schedule& schedule);

}  // namespace ringlab::lab
