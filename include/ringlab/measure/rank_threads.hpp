#pragma once
// Ranks as threads of this process (a ThreadWorld: inproc, or any transport whose ranks start as
// threads), with failures handled as in
// processes: the first rank to throw stops the others (their waits end at once instead of at their
// timeout), every thread is joined, and its exception is rethrown in the caller, so a Timeout or
// PeerLost ends as an ordinary Error and never in std::terminate.
#include <functional>

#include "ringlab/transport/thread_world.hpp"

namespace ringlab::measure {

// Runs body(rank) for every rank of `world`, each on its own thread.
void runRankThreads(transport::ThreadWorld& world, const std::function<void(int rank)>& body);

}  // namespace ringlab::measure
