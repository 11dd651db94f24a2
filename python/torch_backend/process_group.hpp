#pragma once
// ProcessGroupRinglab: a torch.distributed (c10d) process group whose collectives run on
// ringlab's Communicator over the shm or tcp transport. Rendezvous goes through the c10d Store
// torch hands the backend. Each collective is checked on the caller's thread (CPU tensors of a
// dtype ringlab has, an op it has), then queued on the group's progress thread (work.hpp).
//
// The group's algorithm is the AllReduce's; every other collective runs it where it builds that
// collective, else its own default (collective_algorithm.hpp).
// broadcast, reduce and all_to_all run ringlab's own schedules for them (binomial trees and a
// pairwise exchange; broadcast moves the bytes, so the root's bits arrive unchanged: -0.0 and
// NaN payloads included); barrier is a one-byte AllReduce. The rest of gloo's CPU operations are
// composed of the collectives ringlab has (process_group_composed.cpp): scatter is a
// ReduceScatter of bytes with max, gather and all_gather_coalesced are AllGathers of bytes;
// point-to-point and monitored_barrier go through the store (store_mailbox.hpp,
// process_group_store.cpp).
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reduction.hpp"
#include "ringlab/communicator.hpp"
#include "shared_memory_pool.hpp"
#include "store_adapter.hpp"
#include "store_mailbox.hpp"
#include "work.hpp"

namespace ringlab::torch_backend {

struct BackendOptions {
  std::string transport = "auto";  // auto (shm when all ranks share a host, else tcp), shm, tcp
  std::string algorithm = "auto";  // a registry name, or auto (chosen per call by the model)
  std::string bindHost;            // tcp: empty = 127.0.0.1 on one host, else every interface
};

class ProcessGroupRinglab final : public c10d::ProcessGroup {
 public:
  // Collective over the group: every rank calls it with the same store. `timeout` bounds the
  // set-up and every wait of every collective (torch's init_process_group(timeout=...)).
  ProcessGroupRinglab(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                      std::chrono::milliseconds timeout, const BackendOptions& options);
  ~ProcessGroupRinglab() override;

  const std::string getBackendName() const override { return "ringlab"; }
  const std::string& transportName() const { return transportName_; }
  const std::string& algorithm() const { return collective_.algorithm.name; }
  // Where this group's shared tensors come from (shared_tensors.hpp).
  const std::shared_ptr<SharedMemoryPool>& sharedMemory() const { return sharedMemory_; }
  // Messages of shared tensors at least this large go single copy (Transport::singleCopyBytes).
  std::uint64_t singleCopyBytes() const { return transport_->singleCopyBytes(); }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(
      std::vector<at::Tensor>& tensors, const c10d::AllreduceCoalescedOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
      at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;

  // process_group_composed.cpp
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors,
                                        const c10d::ReduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,
                                        std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,
                                         std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs,
                                                     std::vector<at::Tensor>& inputs,
                                                     const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<std::int64_t>& outputSplits,
                                               std::vector<std::int64_t>& inputSplits,
                                               const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs,
                                          std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts) override;

  // process_group_store.cpp
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src, int tag) override;
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;
  void monitoredBarrier(const c10d::BarrierOptions& opts, bool waitAllRanks) override;

 private:
  void connect(const BackendOptions& options);
  // A call's options: the group's algorithm (RINGLAB_TORCH_ALGORITHM) and the call's timeout.
  CollectiveOptions callOptions(std::chrono::milliseconds timeout) const;
  // Queues `run` with a Work whose result is `outputs`.
  c10::intrusive_ptr<c10d::Work> submit(c10d::OpType type, std::vector<at::Tensor> outputs,
                                        std::function<void()> run);
  // On the progress thread: every rank's bytes of `tensor`, in rank order, as [size, nbytes]
  // uint8 rows (each rank's tensor must have as many bytes). `call` may be any collective's.
  at::Tensor allgatherBytes(const at::Tensor& tensor, const CollectiveOptions& call);
  // On the progress thread: `flat` (contiguous) reduced over the group, in place.
  void allreduceFlat(at::Tensor& flat, const Reduction& reduction, const CollectiveOptions& call);
  // On the progress thread: sends[d] (any dtype) to rank d, and rank s's block for this rank
  // into targets[s] (any dtype, as many bytes).
  void exchangeBlocks(const std::vector<at::Tensor>& sends, const std::vector<at::Tensor>& targets,
                      const CollectiveOptions& call);
  c10::intrusive_ptr<c10d::Work> allreduceSparse(at::Tensor& tensor,
                                                 const c10d::AllreduceOptions& opts);
  // recv and recvAnysource: src is StoreMailbox::kAnySource for the latter.
  c10::intrusive_ptr<c10d::Work> receive(std::vector<at::Tensor>& tensors, int src, int tag,
                                         c10d::OpType type);

  C10dStore store_;
  c10::intrusive_ptr<c10d::Store> c10dStore_;  // the same store, for bytes and key checks
  std::chrono::milliseconds timeout_;
  std::string transportName_;
  std::shared_ptr<transport::Transport> transport_;  // shared with the shared tensors' pool
  std::shared_ptr<SharedMemoryPool> sharedMemory_;
  std::unique_ptr<Communicator> communicator_;
  CollectiveOptions collective_;
  StoreMailbox mailbox_;
  std::uint64_t monitoredBarriers_ = 0;       // calls so far: each one's keys are its own
  std::unique_ptr<ProgressThread> progress_;  // declared last: stopped before the rest goes
  // Receives wait on a thread of their own, so that a collective is never queued behind a
  // receive whose sender waits for that collective (gloo runs them apart too).
  std::unique_ptr<ProgressThread> receives_;
};

}  // namespace ringlab::torch_backend
