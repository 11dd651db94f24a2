#pragma once
// Whom a rank blames when a collective fails. A collective call has one deadline, counted from
// its start. The waits give up a survey window before it; the rank then aborts (telling every
// peer, and where it stands: the receive it waits for) and spends what is left asking the
// transport what each peer did: peers that answer with an abort of their own are alive, so the
// blame goes to those that are gone or stayed silent. When every rank is alive and answered, a
// rank that stopped sending is told by where each stood: the rank it feeds waits at an earlier
// step than any other, while it, being fed, got further or waits for no receive. Every survivor
// sees the same answers, so all of them name the same rank.
#include <chrono>
#include <cstdint>
#include <vector>

#include "ringlab/core/error.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::exec {

using Clock = std::chrono::steady_clock;

// Tags of the agreement rounds before a call's first run (Communicator): round k has tag
// kAgreementTag + k. The executor's steps use the schedule's step numbers, small tags from 0.
// A call waits in the rounds first, then in the steps.
inline constexpr std::uint32_t kAgreementTag = 0x80000000u;

struct CallDeadline {
  Clock::time_point waits;   // the waits give up here
  Clock::time_point report;  // the error is reported by here: start + timeout
  std::chrono::milliseconds window;
};

// A quarter of the timeout, at most a second, is kept for finding whom to blame.
CallDeadline callDeadline(Clock::time_point start, std::chrono::milliseconds timeout);

// The error this rank reports, given the one it gave up with and what the survey found (entry
// `rank` with this rank's own WaitPoint). Gone and silent ranks are named first (PeerLost when one
// is gone, Timeout when they are only silent). Else, for a timeout where every rank answered and
// said where it stood, the ranks that stopped sending: those that the ranks waiting at the
// earliest step wait for. Else the original error.
Error attributeFailure(int rank, const Error& first,
                       const std::vector<transport::PeerReport>& reports);

}  // namespace ringlab::exec
