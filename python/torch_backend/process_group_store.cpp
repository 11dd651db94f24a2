// What goes through the group's store rather than its transport: point-to-point messages
// (store_mailbox.hpp) and monitored_barrier, whose point is to name the ranks that did not come,
// which a collective that simply times out cannot.
#include <c10/util/Exception.h>

#include <algorithm>

#include "process_group.hpp"
#include "tensors.hpp"

namespace ringlab::torch_backend {

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::send(std::vector<at::Tensor>& tensors, int dst,
                                                         int tag) {
  const at::Tensor& tensor = onlyTensor(tensors, "send");
  checkDenseCpu(tensor, "send");
  checkRank(dst, size_, "send", "destination rank");
  mailbox_.send(tensor.contiguous(), dst, tag);
  auto work = c10::make_intrusive<RinglabWork>(rank_, c10d::OpType::SEND, tensors);
  work->complete(nullptr);
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::recv(std::vector<at::Tensor>& tensors, int src,
                                                         int tag) {
  checkRank(src, size_, "recv", "source rank");
  return receive(tensors, src, tag, c10d::OpType::RECV);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::recvAnysource(std::vector<at::Tensor>& tensors,
                                                                  int tag) {
  return receive(tensors, StoreMailbox::kAnySource, tag, c10d::OpType::RECVANYSOURCE);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::receive(std::vector<at::Tensor>& tensors,
                                                            int src, int tag, c10d::OpType type) {
  at::Tensor tensor = onlyTensor(tensors, "recv");
  checkDenseCpu(tensor, "recv");
  auto work = c10::make_intrusive<RinglabWork>(rank_, type, tensors);
  RinglabWork* done = work.get();  // the queued task holds the work as long as it runs
  receives_->enqueue(work, "recv", [=, this]() mutable {
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    withContiguous(tensor, [&](at::Tensor& flat) {
      done->setSourceRank(mailbox_.recv(flat, src, tag, deadline));
    });
  });
  return work;
}

void ProcessGroupRinglab::monitoredBarrier(const c10d::BarrierOptions& opts, bool waitAllRanks) {
  // Every rank but 0 says it arrived and waits for rank 0's release; rank 0 waits for each in
  // rank order, and names the first that did not come in time (or all of them: waitAllRanks).
  using Clock = std::chrono::steady_clock;
  const std::chrono::milliseconds timeout =
      opts.timeout == c10d::kUnsetTimeout ? timeout_ : opts.timeout;
  const auto deadline = Clock::now() + timeout;
  const std::string prefix = "ringlab/monitored_barrier/" + std::to_string(monitoredBarriers_++);
  const std::vector<std::uint8_t> yes{1};
  if (rank_ != 0) {
    c10dStore_->set(prefix + "/arrived/" + std::to_string(rank_), yes);
    try {
      c10dStore_->wait({prefix + "/released"}, timeout);
    } catch (const std::exception&) {
      TORCH_CHECK(false, "ringlab: Rank ", rank_,
                  " successfully reached monitoredBarrier, but received errors while waiting "
                  "for send/recv from rank 0 (no release within ",
                  timeout.count(), " ms); rank 0 names the faulty rank");
    }
    return;
  }
  std::string missing;
  int missed = 0;
  for (int r = 1; r < size_; ++r) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    TORCH_CHECK(waitAllRanks || left.count() > 0,
                "ringlab: Rank 0 timed out in monitoredBarrier after ", timeout.count(),
                " ms, before hearing from rank ", r);
    const std::string key = prefix + "/arrived/" + std::to_string(r);
    bool arrived = c10dStore_->check({key});
    if (!arrived && left.count() > 0) {
      try {
        c10dStore_->wait({key}, left);
        arrived = true;
      } catch (const std::exception&) {
      }
    }
    if (arrived) continue;
    TORCH_CHECK(waitAllRanks, "ringlab: Rank ", r, " failed to pass monitoredBarrier in ",
                timeout.count(), " ms");
    missing += (missed++ == 0 ? "" : ", ") + std::to_string(r);
  }
  TORCH_CHECK(missed == 0, "ringlab: ", missed == 1 ? "Rank " : "Ranks ", missing,
              " failed to pass monitoredBarrier in ", timeout.count(), " ms");
  c10dStore_->set(prefix + "/released", yes);
}

}  // namespace ringlab::torch_backend
