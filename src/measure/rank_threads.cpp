#include "ringlab/measure/rank_threads.hpp"

#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ringlab/core/error.hpp"

namespace ringlab::measure {

namespace {

// Stops every rank's waits; `reason` may not even be built when memory has run out, and then the
// ranks stop without it rather than the process ending in terminate.
void stopRanks(transport::ThreadWorld& world, const std::function<std::string()>& reason) {
  try {
    world.abort(reason());
  } catch (const std::exception&) {
    world.abort({});
  }
}

}  // namespace

void runRankThreads(transport::ThreadWorld& world, const std::function<void(int rank)>& body) {
  std::mutex errorMutex;
  std::exception_ptr error;
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(world.size()));
  for (int r = 0; r < world.size(); ++r) {
    try {
      threads.emplace_back([&, r] {
        try {
          body(r);
        } catch (const std::exception& e) {
          {
            std::lock_guard lock(errorMutex);
            if (!error) error = std::current_exception();
          }
          // Peers may wait in a transfer with this rank that will never come: stop them all.
          stopRanks(world, [&] { return "rank " + std::to_string(r) + " failed: " + e.what(); });
        }
      });
    } catch (const std::exception& e) {
      // No thread for this rank (out of memory or over the process's thread limit): the ranks
      // already running would wait for it, so stop them, and fail as an error, not in terminate.
      stopRanks(world, [&] { return "rank " + std::to_string(r) + " could not start"; });
      for (auto& t : threads) t.join();
      throw Error(ErrorCode::Internal,
                  "could not start a thread for rank " + std::to_string(r) + " of " +
                      std::to_string(world.size()) + " (" + e.what() +
                      "); run fewer ranks, or raise the process's memory or thread limit");
    }
  }
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace ringlab::measure
