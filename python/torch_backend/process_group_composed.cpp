// The operations gloo offers on CPU beyond AllReduce, AllGather, ReduceScatter and broadcast.
// reduce and all_to_all run ringlab's own schedules (a binomial tree to the root; a pairwise
// exchange of the blocks, padded to the largest). The rest are composed of the collectives
// ringlab has: scatter a ReduceScatter of bytes with max, every rank but the root contributing
// zeros (bits arrive unchanged); gather, all_gather_coalesced and sparse all_reduce AllGathers of
// bytes of which each rank keeps its part, and reductions ringlab's kernels lack (bool, bitwise
// ops) an AllGather folded here. Those move more than a schedule of their own would (gather:
// every rank receives every block), but on the same transports and checks.
#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cstddef>
#include <numeric>

#include "collective_algorithm.hpp"
#include "process_group.hpp"
#include "tensors.hpp"

namespace ringlab::torch_backend {
namespace {

// The one output (or input) list a rooted collective's root takes, of one tensor per rank, each
// of `like`'s dtype and size; none on the other ranks.
std::vector<at::Tensor> rootList(const std::vector<std::vector<at::Tensor>>& lists, bool root,
                                 int rank, int size, const at::Tensor& like, const char* what,
                                 const char* kind) {
  if (!root) {
    TORCH_CHECK(lists.empty(), "ringlab: ", what, ": ", kind, " tensors given on rank ", rank,
                ", which is not the root; only the root takes them");
    return {};
  }
  TORCH_CHECK(lists.size() == 1, "ringlab: ", what, ": ", lists.size(), " ", kind,
              " lists given on the root; it takes one");
  TORCH_CHECK(static_cast<int>(lists.front().size()) == size, "ringlab: ", what, ": ",
              lists.front().size(), " ", kind, " tensors on the root for a group of ", size,
              " ranks; give one per rank");
  checkSameShape(lists.front(), like, what);
  for (const at::Tensor& t : lists.front()) checkDenseCpu(t, what);
  return lists.front();
}

// `bytes` (uint8, as many as `tensor` holds) into `tensor`, whatever its dtype, shape and strides.
void copyBytes(at::Tensor& tensor, const at::Tensor& bytes) {
  if (tensor.numel() == 0) return;
  // Viewed as wider elements, the bytes must start on an element's boundary.
  const at::Tensor aligned =
      bytes.storage_offset() % tensor.element_size() == 0 ? bytes : bytes.clone();
  tensor.copy_(aligned.view(tensor.scalar_type()).view(tensor.sizes()));
}

// Split sizes along dim 0: as given, or equal (none given); they must add up to the tensor's.
std::vector<std::int64_t> splitRows(const at::Tensor& tensor,
                                    const std::vector<std::int64_t>& splits, int size,
                                    const char* what, const char* kind) {
  const std::int64_t rows = tensor.dim() == 0 ? 1 : tensor.size(0);
  if (splits.empty()) {
    TORCH_CHECK(rows % size == 0, "ringlab: ", what, ": the ", kind, " tensor's ", rows,
                " rows do not divide equally among ", size, " ranks; give split sizes");
    return std::vector<std::int64_t>(size, rows / size);
  }
  TORCH_CHECK(static_cast<int>(splits.size()) == size, "ringlab: ", what, ": ", splits.size(), " ",
              kind, " split sizes for a group of ", size, " ranks; give one per rank");
  TORCH_CHECK(std::all_of(splits.begin(), splits.end(), [](std::int64_t n) { return n >= 0; }) &&
                  std::accumulate(splits.begin(), splits.end(), std::int64_t{0}) == rows,
              "ringlab: ", what, ": the ", kind, " split sizes add up to ",
              std::accumulate(splits.begin(), splits.end(), std::int64_t{0}), ", not to the ", kind,
              " tensor's ", rows, " rows");
  return splits;
}

// Whether `parts` lie back to back in memory, each contiguous and `bytes` long.
bool backToBack(const std::vector<at::Tensor>& parts, std::int64_t bytes) {
  const auto* first = static_cast<const std::byte*>(parts.front().data_ptr());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (!parts[i].is_contiguous() || static_cast<std::int64_t>(parts[i].nbytes()) != bytes ||
        static_cast<const std::byte*>(parts[i].data_ptr()) !=
            first + static_cast<std::int64_t>(i) * bytes) {
      return false;
    }
  }
  return true;
}

// The tensor's rows cut by `splits`, each block contiguous.
std::vector<at::Tensor> blocks(const at::Tensor& tensor, const std::vector<std::int64_t>& splits) {
  std::vector<at::Tensor> out;
  const at::Tensor flat = tensor.contiguous();
  const std::int64_t rows = std::accumulate(splits.begin(), splits.end(), std::int64_t{0});
  const std::int64_t perRow = rows == 0 ? 0 : flat.numel() / rows;
  std::int64_t offset = 0;
  for (std::int64_t n : splits) {
    out.push_back(flat.view(-1).narrow(0, offset * perRow, n * perRow));
    offset += n;
  }
  return out;
}

}  // namespace

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::reduce(std::vector<at::Tensor>& tensors,
                                                           const c10d::ReduceOptions& opts) {
  at::Tensor tensor = onlyTensor(tensors, "reduce");
  checkRank(opts.rootRank, size_, "reduce", "root rank");
  const Reduction reduction = reductionFor(tensor, opts.reduceOp, "reduce");
  const int rootRank = static_cast<int>(opts.rootRank);
  const bool root = rootRank == rank_;
  const CollectiveOptions call =
      reduction.folded ? callOptions(opts.timeout)
                       : optionsFor(schedule::Collective::Reduce, callOptions(opts.timeout));
  return submit(c10d::OpType::REDUCE, {tensor}, [=, this]() mutable {
    if (reduction.folded) {  // every rank folds every rank's tensor; the others' stay as they were
      at::Tensor flat = root ? tensor : tensor.contiguous().clone();
      withContiguous(flat,
                     [&](at::Tensor& contiguous) { allreduceFlat(contiguous, reduction, call); });
    } else if (root) {
      withContiguous(tensor, [&](at::Tensor& flat) {
        if (flat.numel() == 0) return;
        communicator_->reduce(flat.data_ptr(), flat.data_ptr(), flat.numel(), reduction.type,
                              reduction.op, rootRank, call);
      });
    } else {  // the others' tensors stay as they were: the tree's partial sums go elsewhere
      const at::Tensor in = tensor.contiguous();
      if (in.numel() == 0) return;
      communicator_->reduce(in.data_ptr(), nullptr, in.numel(), reduction.type, reduction.op,
                            rootRank, call);
    }
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::gather(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::GatherOptions& opts) {
  const at::Tensor input = onlyTensor(inputs, "gather");
  checkDenseCpu(input, "gather");
  checkRank(opts.rootRank, size_, "gather", "root rank");
  const bool root = opts.rootRank == rank_;
  std::vector<at::Tensor> outs = rootList(outputs, root, rank_, size_, input, "gather", "output");
  const CollectiveOptions call = callOptions(opts.timeout);
  return submit(c10d::OpType::GATHER, outs, [=, this]() mutable {
    const at::Tensor rows = allgatherBytes(input, call);
    for (int r = 0; r < static_cast<int>(outs.size()); ++r) copyBytes(outs[r], rows[r]);
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::scatter(
    std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ScatterOptions& opts) {
  at::Tensor output = onlyTensor(outputs, "scatter");
  checkDenseCpu(output, "scatter");
  checkRank(opts.rootRank, size_, "scatter", "root rank");
  const bool root = opts.rootRank == rank_;
  const std::vector<at::Tensor> ins =
      rootList(inputs, root, rank_, size_, output, "scatter", "input");
  const CollectiveOptions call =
      optionsFor(schedule::Collective::ReduceScatter, callOptions(opts.timeout));
  return submit(c10d::OpType::SCATTER, {output}, [=, this]() mutable {
    const auto bytes = static_cast<std::int64_t>(output.nbytes());
    if (bytes == 0) return;
    at::Tensor send = at::zeros({size_ * bytes}, at::kByte);
    for (int r = 0; r < static_cast<int>(ins.size()); ++r) {
      send.narrow(0, r * bytes, bytes).copy_(asBytes(ins[r].contiguous()));
    }
    withContiguous(output, [&](at::Tensor& flat) {
      communicator_->reduceScatter(send.data_ptr(), flat.data_ptr(), bytes, DataType::Uint8,
                                   ReduceOp::Max, call);
    });
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::allgather_coalesced(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::AllgatherOptions& opts) {
  TORCH_CHECK(static_cast<int>(outputs.size()) == size_,
              "ringlab: allgather_coalesced: ", outputs.size(), " output lists for a group of ",
              size_, " ranks; give one per rank");
  for (const at::Tensor& t : inputs) checkDenseCpu(t, "allgather_coalesced");
  std::vector<at::Tensor> outs;
  for (const std::vector<at::Tensor>& list : outputs) {
    TORCH_CHECK(list.size() == inputs.size(), "ringlab: allgather_coalesced: an output list of ",
                list.size(), " tensors for ", inputs.size(), " inputs; give one per input");
    for (std::size_t i = 0; i < list.size(); ++i) {
      checkShape(list[i], inputs[i].scalar_type(), inputs[i].numel(), "allgather_coalesced");
      outs.push_back(list[i]);
    }
  }
  const CollectiveOptions call = callOptions(opts.timeout);
  return submit(c10d::OpType::ALLGATHER_COALESCED, outs, [=, this]() mutable {
    std::vector<at::Tensor> bytes;
    for (const at::Tensor& t : inputs) bytes.push_back(asBytes(t.contiguous()).clone());
    const at::Tensor rows = allgatherBytes(at::cat(bytes), call);
    std::size_t next = 0;
    for (int r = 0; r < size_; ++r) {
      std::int64_t offset = 0;
      for (const at::Tensor& input : inputs) {
        const auto n = static_cast<std::int64_t>(input.nbytes());
        copyBytes(outs[next++], rows[r].narrow(0, offset, n));
        offset += n;
      }
    }
  });
}

void ProcessGroupRinglab::exchangeBlocks(const std::vector<at::Tensor>& sends,
                                         const std::vector<at::Tensor>& targets,
                                         const CollectiveOptions& call) {
  // Every rank learns every rank's block sizes; then one alltoall moves the blocks, each padded
  // to the largest block any rank sends.
  at::Tensor sizes = at::empty({size_}, at::kLong);
  for (int d = 0; d < size_; ++d) sizes[d] = static_cast<std::int64_t>(sends[d].nbytes());
  const at::Tensor all = allgatherBytes(sizes, call).view(at::kLong).view({size_, size_});
  const CollectiveOptions exchange = optionsFor(schedule::Collective::AllToAll, call);
  const std::int64_t longest = all.max().item<std::int64_t>();
  // Blocks all of one size that already lie back to back, here and in the output, go straight
  // from input to output; other ranks may pack theirs, but every rank makes the same call.
  if (longest > 0 && all.min().item<std::int64_t>() == longest && backToBack(sends, longest) &&
      backToBack(targets, longest)) {
    communicator_->allToAll(sends.front().data_ptr(), targets.front().data_ptr(), longest,
                            DataType::Uint8, exchange);
    return;
  }
  at::Tensor rows = at::empty({size_, longest}, at::kByte);
  if (longest > 0) {
    at::Tensor packed = at::zeros({size_ * longest}, at::kByte);
    for (int d = 0; d < size_; ++d) {
      const auto n = static_cast<std::int64_t>(sends[d].nbytes());
      packed.narrow(0, d * longest, n).copy_(asBytes(sends[d].contiguous()));
    }
    communicator_->allToAll(packed.data_ptr(), rows.data_ptr(), longest, DataType::Uint8, exchange);
  }
  for (int s = 0; s < size_; ++s) {
    at::Tensor target = targets[s];
    const std::int64_t n = all[s][rank_].item<std::int64_t>();
    TORCH_CHECK(n == static_cast<std::int64_t>(target.nbytes()), "ringlab: alltoall: rank ", s,
                " sent ", n, " bytes to rank ", rank_, ", whose output for it holds ",
                target.nbytes());
    copyBytes(target, rows[s].narrow(0, 0, n));
  }
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::alltoall_base(
    at::Tensor& output, at::Tensor& input, std::vector<std::int64_t>& outputSplits,
    std::vector<std::int64_t>& inputSplits, const c10d::AllToAllOptions& opts) {
  checkDenseCpu(input, "alltoall");
  checkDenseCpu(output, "alltoall");
  TORCH_CHECK(input.scalar_type() == output.scalar_type(), "ringlab: alltoall: input of ",
              input.scalar_type(), " and output of ", output.scalar_type(), "; give one dtype");
  const std::vector<std::int64_t> ins = splitRows(input, inputSplits, size_, "alltoall", "input");
  const std::vector<std::int64_t> outs =
      splitRows(output, outputSplits, size_, "alltoall", "output");
  const CollectiveOptions call = callOptions(opts.timeout);
  at::Tensor out = output;
  return submit(c10d::OpType::ALLTOALL_BASE, {output}, [=, this]() mutable {
    withContiguous(out, [&](at::Tensor& flat) {
      exchangeBlocks(blocks(input, ins), blocks(flat, outs), call);
    });
  });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::alltoall(std::vector<at::Tensor>& outputs,
                                                             std::vector<at::Tensor>& inputs,
                                                             const c10d::AllToAllOptions& opts) {
  TORCH_CHECK(static_cast<int>(inputs.size()) == size_ && static_cast<int>(outputs.size()) == size_,
              "ringlab: alltoall: ", inputs.size(), " inputs and ", outputs.size(),
              " outputs for a group of ", size_, " ranks; give one of each per rank");
  for (const at::Tensor& t : inputs) checkDenseCpu(t, "alltoall");
  for (const at::Tensor& t : outputs) checkDenseCpu(t, "alltoall");
  const CollectiveOptions call = callOptions(opts.timeout);
  return submit(c10d::OpType::ALLTOALL, outputs,
                [=, this]() mutable { exchangeBlocks(inputs, outputs, call); });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRinglab::allreduceSparse(
    at::Tensor& tensor, const c10d::AllreduceOptions& opts) {
  TORCH_CHECK(tensor.device().is_cpu(), "ringlab: allreduce: a sparse tensor on ", tensor.device(),
              "; the ringlab backend takes CPU tensors");
  TORCH_CHECK(opts.reduceOp == c10d::ReduceOp::SUM, "ringlab: allreduce: reduce op ",
              static_cast<int>(opts.reduceOp.op_), " on a sparse tensor; sparse tensors take SUM");
  const CollectiveOptions call = callOptions(opts.timeout);
  return submit(c10d::OpType::ALLREDUCE, {tensor}, [=, this]() mutable {
    // As gloo does: every rank gathers every rank's indices and values, and adds them up.
    const at::Tensor mine = tensor.coalesce();
    const at::Tensor indices = mine.indices().t().contiguous();  // [nnz, sparse dims]
    const at::Tensor values = mine.values().contiguous();        // [nnz, dense sizes...]
    at::Tensor count = at::full({1}, mine._nnz(), at::kLong);
    const at::Tensor counts = allgatherBytes(count, call).view(at::kLong).view({size_});
    const std::int64_t longest = counts.max().item<std::int64_t>();
    auto padded = [&](const at::Tensor& t) {
      std::vector<std::int64_t> shape = t.sizes().vec();
      shape[0] = longest;
      at::Tensor out = at::zeros(shape, t.options());
      out.narrow(0, 0, t.size(0)).copy_(t);
      return out;
    };
    const at::Tensor allIndices = allgatherBytes(padded(indices), call);
    const at::Tensor allValues = allgatherBytes(padded(values), call);
    std::vector<std::int64_t> valueShape = values.sizes().vec();
    valueShape[0] = longest;
    at::Tensor sum = at::zeros_like(mine);
    for (int r = 0; r < size_; ++r) {
      const std::int64_t n = counts[r].item<std::int64_t>();
      const at::Tensor i =
          allIndices[r].view(at::kLong).view({longest, indices.size(1)}).narrow(0, 0, n);
      const at::Tensor v = allValues[r].view(values.scalar_type()).view(valueShape).narrow(0, 0, n);
      sum = sum + at::sparse_coo_tensor(i.t(), v, mine.sizes(), mine.options());
    }
    tensor.copy_(sum.coalesce());
  });
}

}  // namespace ringlab::torch_backend
