#include "ringlab/measure/rank_threads.hpp"

#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ringlab::measure {

void runRankThreads(transport::InprocWorld& world, const std::function<void(int rank)>& body) {
  std::mutex errorMutex;
  std::exception_ptr error;
  std::vector<std::thread> threads;
  for (int r = 0; r < world.size(); ++r) {
    threads.emplace_back([&, r] {
      try {
        body(r);
      } catch (const std::exception& e) {
        {
          std::lock_guard lock(errorMutex);
          if (!error) error = std::current_exception();
        }
        // Peers may wait in a transfer with this rank that will never come: stop them all.
        world.abort(std::string("rank ") + std::to_string(r) + " failed: " + e.what());
      }
    });
  }
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace ringlab::measure
