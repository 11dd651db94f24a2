#include <algorithm>
#include <string>

#include "ringlab/bootstrap/store.hpp"
#include "ringlab/core/error.hpp"

namespace ringlab::bootstrap {

void barrier(Store& store, const std::string& name, int rank, int size,
             std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  store.set("barrier/" + name + "/" + std::to_string(rank), "1");
  std::string missing;
  for (int r = 0; r < size; ++r) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    try {
      store.get("barrier/" + name + "/" + std::to_string(r),
                std::max(left, std::chrono::milliseconds(1)));
    } catch (const Error& e) {
      if (e.code() != ErrorCode::Timeout) throw;
      missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    }
  }
  if (!missing.empty()) {
    throw Error(ErrorCode::Timeout, "rendezvous '" + name + "': rank(s) " + missing +
                                        " did not arrive within " +
                                        std::to_string(timeout.count()) + " ms; are all " +
                                        std::to_string(size) + " ranks started?");
  }
}

}  // namespace ringlab::bootstrap
