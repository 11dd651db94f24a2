#include "store_adapter.hpp"

#include <vector>

#include "ringlab/core/error.hpp"

namespace ringlab::torch_backend {

void C10dStore::set(const std::string& key, const std::string& value) {
  try {
    store_->set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
  } catch (const std::exception& e) {
    throw Error(ErrorCode::Transport, "torch store: cannot set '" + key + "': " + e.what());
  }
}

std::string C10dStore::get(const std::string& key, std::chrono::milliseconds timeout) {
  // c10d's get() waits with the store's own timeout; wait() takes ours, so the transports'
  // set-up deadlines hold as they do over ringlab's stores.
  const auto start = std::chrono::steady_clock::now();
  try {
    store_->wait({key}, timeout);
    const std::vector<std::uint8_t> value = store_->get(key);
    return std::string(value.begin(), value.end());
  } catch (const std::exception& e) {
    // c10d reports an expired wait and an unreachable store with the same exception type; the
    // clock tells them apart.
    if (std::chrono::steady_clock::now() - start >= timeout) {
      throw Error(ErrorCode::Timeout, "torch store: key '" + key + "' not set within " +
                                          std::to_string(timeout.count()) +
                                          " ms; are all ranks of the group started?");
    }
    throw Error(ErrorCode::Transport, "torch store: cannot get '" + key + "': " + e.what());
  }
}

}  // namespace ringlab::torch_backend
