#pragma once
// ringlab's rendezvous Store over the c10d::Store that torch.distributed hands a backend (under
// torchrun a TCPStore, already wrapped in a PrefixStore per process group): the transports meet
// through it, so a torchrun job needs no second port or token.
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <string>

#include "ringlab/bootstrap/store.hpp"

namespace ringlab::torch_backend {

class C10dStore final : public bootstrap::Store {
 public:
  explicit C10dStore(c10::intrusive_ptr<c10d::Store> store) : store_(std::move(store)) {}

  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key, std::chrono::milliseconds timeout) override;

 private:
  c10::intrusive_ptr<c10d::Store> store_;
};

}  // namespace ringlab::torch_backend
