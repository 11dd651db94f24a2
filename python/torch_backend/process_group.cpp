#include "process_group.hpp"

#include <unistd.h>

#include <cctype>
#include <random>

#include "collective_algorithm.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/job/transports.hpp"
#include "tensors.hpp"

namespace ringlab::torch_backend {
namespace {

std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

// The tcp transport's job token: drawn by rank 0, shared through the store.
std::string randomToken() {
  std::random_device device;
  std::string token;
  for (int i = 0; i < 32; ++i) token += "0123456789abcdef"[device() % 16];
  return token;
}

// A ringlab call's waits end a quarter of its timeout (at most a second) before it, a window kept
// for learning which peer failed (exec::callDeadline). Torch users expect a wait to last the
// timeout they gave, as gloo's does: the call is given that window on top.
std::chrono::milliseconds waitsLasting(std::chrono::milliseconds timeout) {
  using std::chrono::seconds;
  return timeout >= seconds(3) ? timeout + seconds(1) : timeout * 4 / 3;
}

}  // namespace

ProcessGroupRinglab::ProcessGroupRinglab(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                         int size, std::chrono::milliseconds timeout,
                                         const BackendOptions& options)
    : c10d::ProcessGroup(rank, size),
      store_(store),
      c10dStore_(store),
      timeout_(timeout),
      mailbox_(store, rank, size) {
  init();
  // A name that builds no AllReduce fails here, naming the valid ones, rather than at the first
  // collective.
  checkAllReduceAlgorithm(options.algorithm, size);
  collective_.algorithm.name = options.algorithm;
  connect(options);
  sharedMemory_ = std::make_shared<SharedMemoryPool>(transport_);
  communicator_ = std::make_unique<Communicator>(*transport_);
  const std::string describe =
      "rank " + std::to_string(rank) + " of " + std::to_string(size) + " (" + transportName_ + ")";
  progress_ = std::make_unique<ProgressThread>(describe);
  receives_ = std::make_unique<ProgressThread>(describe + " receiving");
}

ProcessGroupRinglab::~ProcessGroupRinglab() = default;

void ProcessGroupRinglab::connect(const BackendOptions& options) {
  // Every rank learns every rank's host: the same facts give every rank the same choice.
  const std::string host = hostName();
  store_.set("ringlab/host/" + std::to_string(rank_), host);
  int hosts = 1;
  for (int r = 0; r < size_; ++r) {
    if (store_.get("ringlab/host/" + std::to_string(r), timeout_) != host) hosts = 2;
  }
  const job::TransportEntry& entry =
      job::transportForGroup(options.transport, hosts == 1, "ringlab transport");
  transportName_ = entry.name;
  // Every network connection presents the group's token; rank 0 draws it.
  std::string token;
  if (rank_ == 0) store_.set("ringlab/token", token = randomToken());
  if (rank_ != 0) token = store_.get("ringlab/token", timeout_);
  std::string bind = options.bindHost;
  if (bind.empty()) bind = hosts == 1 ? "127.0.0.1" : "0.0.0.0";
  transport_ = entry.connect({.rank = rank_,
                              .size = size_,
                              .store = &store_,
                              .token = token,
                              .bindHost = bind,
                              .timeout = timeout_});
}

CollectiveOptions ProcessGroupRinglab::callOptions(std::chrono::milliseconds timeout) const {
  CollectiveOptions call = collective_;
  call.exec.timeout = waitsLasting(timeout == c10d::kUnsetTimeout ? timeout_ : timeout);
  return call;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::submit(c10d::OpType type,
                                                           std::vector<at::Tensor> outputs,
                                                           std::function<void()> run) {
  auto work = c10::make_intrusive<RinglabWork>(rank_, type, std::move(outputs));
  std::string what = c10d::opTypeToString(type);  // "ALLREDUCE": lower case for messages
  for (char& c : what) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  progress_->enqueue(work, std::move(what), std::move(run));
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::allreduce(std::vector<at::Tensor>& tensors,
                                                              const c10d::AllreduceOptions& opts) {
  at::Tensor tensor = onlyTensor(tensors, "allreduce");
  if (tensor.is_sparse()) return allreduceSparse(tensor, opts);
  const Reduction reduction = allreduceReductionFor(tensor, opts.reduceOp, "allreduce");
  const CollectiveOptions call = callOptions(opts.timeout);
  return submit(c10d::OpType::ALLREDUCE, {tensor}, [=, this]() mutable {
    withContiguous(tensor, [&](at::Tensor& flat) { allreduceFlat(flat, reduction, call); });
  });
}

void ProcessGroupRinglab::allreduceFlat(at::Tensor& flat, const Reduction& reduction,
                                        const CollectiveOptions& call) {
  if (flat.numel() == 0) return;
  if (reduction.op == ReduceOp::PreMulSum) {
    communicator_->allreducePreMulSum(flat.data_ptr(), flat.data_ptr(), flat.numel(),
                                      reduction.type, reduction.factor, call);
    return;
  }
  if (!reduction.folded) {
    communicator_->allreduce(flat.data_ptr(), flat.data_ptr(), flat.numel(), reduction.type,
                             reduction.op, call);
    return;
  }
  const at::Tensor rows = allgatherBytes(flat, call).view(flat.scalar_type()).view({size_, -1});
  flat.copy_(foldRows(rows, reduction.torchOp).view(flat.sizes()));
}

at::Tensor ProcessGroupRinglab::allgatherBytes(const at::Tensor& tensor,
                                               const CollectiveOptions& call) {
  const at::Tensor in = tensor.contiguous();
  const auto bytes = static_cast<std::int64_t>(in.nbytes());
  at::Tensor rows = at::empty({size_, bytes}, at::kByte);
  if (bytes > 0) {
    communicator_->allgather(in.data_ptr(), rows.data_ptr(), bytes, DataType::Uint8,
                             optionsFor(schedule::Collective::AllGather, call));
  }
  return rows;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::allreduce_coalesced(
    std::vector<at::Tensor>& tensors, const c10d::AllreduceCoalescedOptions& opts) {
  TORCH_CHECK(!tensors.empty(), "ringlab: allreduce_coalesced: no tensors given");
  const DataType type = ringlabType(tensors.front(), "allreduce_coalesced");
  for (const at::Tensor& t : tensors) {
    TORCH_CHECK(ringlabType(t, "allreduce_coalesced") == type,
                "ringlab: allreduce_coalesced: tensors of ", t.scalar_type(), " and ",
                tensors.front().scalar_type(), "; all must have one dtype");
  }
  const ReduceOp op = ringlabOp(opts.reduceOp, "allreduce_coalesced");
  const CollectiveOptions call = callOptions(opts.timeout);
  return submit(c10d::OpType::ALLREDUCE_COALESCED, tensors, [=, this]() mutable {
    std::vector<at::Tensor> flats;
    for (const at::Tensor& t : tensors) flats.push_back(t.reshape(-1));
    at::Tensor flat = at::cat(flats);
    if (flat.numel() == 0) return;
    communicator_->allreduce(flat.data_ptr(), flat.data_ptr(), flat.numel(), type, op, call);
    std::int64_t offset = 0;
    for (at::Tensor& t : tensors) {
      t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::broadcast(std::vector<at::Tensor>& tensors,
                                                              const c10d::BroadcastOptions& opts) {
  at::Tensor tensor = onlyTensor(tensors, "broadcast");
  checkDenseCpu(tensor, "broadcast");
  checkRank(opts.rootRank, size_, "broadcast", "root rank");
  const int root = static_cast<int>(opts.rootRank);
  const CollectiveOptions call =
      optionsFor(schedule::Collective::Broadcast, callOptions(opts.timeout));
  return submit(c10d::OpType::BROADCAST, {tensor}, [=, this]() mutable {
    withContiguous(tensor, [&](at::Tensor& flat) {
      if (flat.numel() == 0) return;
      communicator_->broadcast(flat.data_ptr(), flat.nbytes(), DataType::Uint8, root, call);
    });
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::allgather(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::AllgatherOptions& opts) {
  const at::Tensor& input = onlyTensor(inputs, "allgather");
  const DataType type = ringlabType(input, "allgather");
  TORCH_CHECK(outputs.size() == 1, "ringlab: allgather: ", outputs.size(),
              " output lists given; the ringlab backend takes one per process");
  std::vector<at::Tensor> outs = outputs.front();
  TORCH_CHECK(static_cast<int>(outs.size()) == size_, "ringlab: allgather: ", outs.size(),
              " output tensors for a group of ", size_, " ranks; give one per rank");
  checkSameShape(outs, input, "allgather");
  const CollectiveOptions call =
      optionsFor(schedule::Collective::AllGather, callOptions(opts.timeout));
  return submit(c10d::OpType::ALLGATHER, outs, [=, this]() mutable {
    const std::int64_t n = input.numel();
    if (n == 0) return;
    const at::Tensor in = input.contiguous();
    at::Tensor flat = at::empty({n * size_}, input.options());
    communicator_->allgather(in.data_ptr(), flat.data_ptr(), n, type, call);
    for (int r = 0; r < size_; ++r) outs[r].copy_(flat.narrow(0, r * n, n).view(outs[r].sizes()));
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::_allgather_base(
    at::Tensor& output, at::Tensor& input, const c10d::AllgatherOptions& opts) {
  const DataType type = ringlabType(input, "allgather");
  ringlabType(output, "allgather");
  checkShape(output, input.scalar_type(), input.numel() * size_, "allgather");
  const CollectiveOptions call =
      optionsFor(schedule::Collective::AllGather, callOptions(opts.timeout));
  at::Tensor out = output;
  return submit(c10d::OpType::_ALLGATHER_BASE, {output}, [=, this]() mutable {
    if (input.numel() == 0) return;
    const at::Tensor in = input.contiguous();
    withContiguous(out, [&](at::Tensor& flat) {
      communicator_->allgather(in.data_ptr(), flat.data_ptr(), in.numel(), type, call);
    });
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::reduce_scatter(
    std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ReduceScatterOptions& opts) {
  at::Tensor output = onlyTensor(outputs, "reduce_scatter");
  const DataType type = ringlabType(output, "reduce_scatter");
  const ReduceOp op = ringlabOp(opts.reduceOp, "reduce_scatter");
  TORCH_CHECK(inputs.size() == 1, "ringlab: reduce_scatter: ", inputs.size(),
              " input lists given; the ringlab backend takes one per process");
  const std::vector<at::Tensor> ins = inputs.front();
  TORCH_CHECK(static_cast<int>(ins.size()) == size_, "ringlab: reduce_scatter: ", ins.size(),
              " input tensors for a group of ", size_, " ranks; give one per rank");
  checkSameShape(ins, output, "reduce_scatter");
  const CollectiveOptions call =
      optionsFor(schedule::Collective::ReduceScatter, callOptions(opts.timeout));
  return submit(c10d::OpType::REDUCE_SCATTER, {output}, [=, this]() mutable {
    if (output.numel() == 0) return;
    std::vector<at::Tensor> flats;
    for (const at::Tensor& t : ins) flats.push_back(t.reshape(-1));
    const at::Tensor in = at::cat(flats);
    withContiguous(output, [&](at::Tensor& flat) {
      communicator_->reduceScatter(in.data_ptr(), flat.data_ptr(), flat.numel(), type, op, call);
    });
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::_reduce_scatter_base(
    at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) {
  const DataType type = ringlabType(output, "reduce_scatter");
  ringlabType(input, "reduce_scatter");
  checkShape(input, output.scalar_type(), output.numel() * size_, "reduce_scatter");
  const ReduceOp op = ringlabOp(opts.reduceOp, "reduce_scatter");
  const CollectiveOptions call =
      optionsFor(schedule::Collective::ReduceScatter, callOptions(opts.timeout));
  at::Tensor out = output;
  return submit(c10d::OpType::_REDUCE_SCATTER_BASE, {output}, [=, this]() mutable {
    if (out.numel() == 0) return;
    const at::Tensor in = input.contiguous();
    withContiguous(out, [&](at::Tensor& flat) {
      communicator_->reduceScatter(in.data_ptr(), flat.data_ptr(), flat.numel(), type, op, call);
    });
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::barrier(const c10d::BarrierOptions& opts) {
  const CollectiveOptions call = callOptions(opts.timeout);
  return submit(c10d::OpType::BARRIER, {}, [=, this]() {
    std::uint8_t token = 0;
    communicator_->allreduce(&token, &token, 1, DataType::Uint8, ReduceOp::Max, call);
  });
}

}  // namespace ringlab::torch_backend
