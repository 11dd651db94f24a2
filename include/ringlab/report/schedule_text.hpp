#pragma once
// The text of `ringlab verify`: a schedule step by step, the verifier's verdict, and the bytes each
// rank sends and receives. Every line ends in a newline.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ringlab/core/dtype.hpp"
#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/schedule/schedule.hpp"
#include "ringlab/schedule/verify.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab::report {

// Two header lines (algorithm, collective, p, ring order, ownership offset, steps, blocks; what an
// entry means), then one line per step: "step   k phase  src->dst bFIRST[..LAST] reduce|copy |
// ...". Each line goes to `write` as soon as it is formatted, in one reused buffer: at p = 1024 a
// ring lists two million transfers, and the listing is never held whole.
void writeScheduleSteps(const schedule::Schedule& s, const schedule::AlgorithmSpec& spec,
                        const std::function<void(std::string_view line)>& write);

// "verdict: valid: every ... element is reduced over all p ranks exactly once", or
// "verdict: INVALID: reason".
std::string verdictLine(const schedule::Schedule& s, const schedule::Verdict& verdict);

// The bytes per rank for `bytes` of `type` (send, send+recv), and for the ring AllReduce the
// closed form 2(p-1)n/p it matches.
std::string volumeText(const schedule::Schedule& s, const schedule::VolumeReport& volume,
                       std::uint64_t bytes, DataType type);

}  // namespace ringlab::report
