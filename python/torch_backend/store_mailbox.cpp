#include "store_mailbox.hpp"

#include <c10/util/Exception.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

namespace ringlab::torch_backend {

StoreMailbox::StoreMailbox(c10::intrusive_ptr<c10d::Store> store, int rank, int size)
    : store_(std::move(store)), rank_(rank), size_(size) {}

std::string StoreMailbox::key(int src, int dst, int tag, std::uint64_t n) const {
  return "ringlab/p2p/" + std::to_string(src) + "->" + std::to_string(dst) + "/" +
         std::to_string(tag) + "/" + std::to_string(n);
}

void StoreMailbox::send(const at::Tensor& tensor, int dst, int tag) {
  const auto* bytes = static_cast<const std::uint8_t*>(tensor.data_ptr());
  std::vector<std::uint8_t> value(bytes, bytes + tensor.nbytes());
  std::lock_guard<std::mutex> lock(sendMutex_);
  store_->set(key(rank_, dst, tag, sent_[{dst, tag}]++), value);
}

void StoreMailbox::take(const std::string& key, at::Tensor& tensor, int src) {
  const std::vector<std::uint8_t> value = store_->get(key);
  TORCH_CHECK(value.size() == tensor.nbytes(), "ringlab: recv: rank ", src, " sent ", value.size(),
              " bytes where the receiving tensor holds ", tensor.nbytes(),
              "; give a tensor of the size sent");
  if (!value.empty()) std::memcpy(tensor.data_ptr(), value.data(), value.size());
  if (!storeDeletes_) return;
  try {
    store_->deleteKey(key);
  } catch (const c10::Error&) {
    storeDeletes_ = false;
  }
}

int StoreMailbox::recv(at::Tensor& tensor, int src, int tag,
                       std::chrono::steady_clock::time_point deadline) {
  std::vector<int> sources;
  for (int r = 0; r < size_; ++r) {
    if (r != rank_ && (src == kAnySource || r == src)) sources.push_back(r);
  }
  // Polled, as a receive from any source must be: no store waits for the first of several keys.
  // The pause grows from 50 us to 5 ms, so a message that is already there is taken at once.
  std::chrono::microseconds pause(50);
  for (;;) {
    for (int s : sources) {
      const std::string k = key(s, rank_, tag, received_[{s, tag}]);
      if (store_->check({k})) {
        take(k, tensor, s);
        ++received_[{s, tag}];
        return s;
      }
    }
    TORCH_CHECK(std::chrono::steady_clock::now() < deadline, "ringlab: recv: no message from ",
                src == kAnySource ? std::string("any rank") : "rank " + std::to_string(src),
                " with tag ", tag, " on rank ", rank_, ": timeout");
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(5000));
  }
}

}  // namespace ringlab::torch_backend
