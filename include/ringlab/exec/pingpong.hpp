#pragma once
// Point-to-point ping-pong over any Transport: the measurement behind `ringlab calibrate`.
#include <chrono>
#include <cstdint>
#include <vector>

#include "ringlab/transport/transport.hpp"

namespace ringlab::exec {

// Runs on two ranks at once: `initiator` true on one of them. Each round trip sends `bytes` to
// `peer` and receives `bytes` back. Returns, on the initiator, the one-way time of each of
// `iterations` round trips (half the round trip) in seconds; on the other rank, an empty vector.
// `buffer` must hold `bytes` and is reused, so no page is touched for the first time while timing.
std::vector<double> pingPong(transport::Transport& transport, int peer, bool initiator,
                             void* buffer, std::uint64_t bytes, int warmup, int iterations,
                             std::chrono::milliseconds timeout);

}  // namespace ringlab::exec
