#pragma once
// Point-to-point messages (torch's send, recv, recv from any source) through the group's c10d
// store: a message is a key, "<prefix>/<src>-><dst>/<tag>/<n>" for the n-th message from src to
// dst with that tag, so messages of different tags never block each other (as gloo's slots), and
// a receive from any source takes the first that has arrived. Sends finish as soon as the store
// holds the bytes, which is gloo's order of events too: a pair that posts its receives before its
// sends cannot deadlock. The price: every message goes through the store (under torchrun rank
// 0's TCPStore), so point-to-point is not the fast path that collectives are.
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace ringlab::torch_backend {

class StoreMailbox {
 public:
  StoreMailbox(c10::intrusive_ptr<c10d::Store> store, int rank, int size);

  // Posts `tensor`'s bytes (contiguous) to `dst` under `tag`. Any thread.
  void send(const at::Tensor& tensor, int dst, int tag);
  // Waits until `deadline` for the next message from `src` (or from any rank when src is
  // kAnySource) with `tag`, copies it into `tensor` (contiguous, of the message's size) and
  // returns its source. Throws on a timeout or a size that does not match. One thread at a time.
  int recv(at::Tensor& tensor, int src, int tag, std::chrono::steady_clock::time_point deadline);

  static constexpr int kAnySource = -1;

 private:
  std::string key(int src, int dst, int tag, std::uint64_t n) const;
  // Copies message `key` from `src` into `tensor` and removes it from the store.
  void take(const std::string& key, at::Tensor& tensor, int src);

  c10::intrusive_ptr<c10d::Store> store_;
  int rank_;
  int size_;
  std::mutex sendMutex_;
  std::map<std::pair<int, int>, std::uint64_t> sent_;      // (dst, tag) -> messages sent
  std::map<std::pair<int, int>, std::uint64_t> received_;  // (src, tag) -> messages taken
  bool storeDeletes_ = true;  // false once the store said it cannot (FileStore): keys then stay
};

}  // namespace ringlab::torch_backend
