#include <condition_variable>
#include <map>
#include <mutex>

#include "ringlab/bootstrap/store.hpp"
#include "ringlab/core/error.hpp"

namespace ringlab::bootstrap {
namespace {

class MemoryStore final : public Store {
 public:
  void set(const std::string& key, const std::string& value) override {
    {
      std::lock_guard lock(mutex_);
      values_[key] = value;
    }
    changed_.notify_all();
  }

  std::string get(const std::string& key, std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, timeout, [&] { return values_.count(key) != 0; })) {
      throw Error(ErrorCode::Timeout, "rendezvous key '" + key + "' not set within " +
                                          std::to_string(timeout.count()) + " ms");
    }
    return values_[key];
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::string> values_;
};

}  // namespace

std::unique_ptr<Store> makeMemoryStore() {
  return std::make_unique<MemoryStore>();
}

}  // namespace ringlab::bootstrap
