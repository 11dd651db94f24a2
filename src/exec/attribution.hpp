#pragma once
// Whom a rank blames when a collective fails. A collective call has one deadline, counted from
// its start. The waits give up a survey window before it; the rank then aborts (telling every
// peer) and spends what is left asking the transport what each peer did: peers that answer with
// an abort of their own are alive, so the blame goes to those that are gone or stayed silent.
// Every survivor sees the same silence, so all of them name the same rank.
#include <chrono>
#include <vector>

#include "ringlab/core/error.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::exec {

using Clock = std::chrono::steady_clock;

struct CallDeadline {
  Clock::time_point waits;   // the waits give up here
  Clock::time_point report;  // the error is reported by here: start + timeout
  std::chrono::milliseconds window;
};

// A quarter of the timeout, at most a second, is kept for finding whom to blame.
CallDeadline callDeadline(Clock::time_point start, std::chrono::milliseconds timeout);

// The error this rank reports, given the one it gave up with and what the survey found: the
// original when every peer answered or the transport cannot tell, else one naming the gone and
// silent ranks first (PeerLost when one is gone, Timeout when they are only silent).
Error attributeFailure(int rank, const Error& first,
                       const std::vector<transport::PeerState>& states);

}  // namespace ringlab::exec
