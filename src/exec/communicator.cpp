#include "ringlab/communicator.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "exec/attribution.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/transport/fault_injection.hpp"

namespace ringlab {
namespace {

constexpr std::size_t kMaxCachedPlans = 64;

std::string planKey(schedule::Collective collective, std::uint64_t count,
                    const schedule::AlgorithmSpec& spec) {
  std::string key = std::string(schedule::collectiveName(collective)) + "|" + spec.name + "|" +
                    std::to_string(count) + "|" + std::to_string(spec.ownershipOffset) + "|" +
                    std::to_string(spec.channels) + "|" + std::to_string(spec.ranksPerNode) + "|" +
                    std::to_string(spec.root) + "|";
  for (int r : spec.ringOrder) key += std::to_string(r) + ",";
  for (const std::vector<int>& order : spec.channelOrders) {
    key += "|";
    for (int r : order) key += std::to_string(r) + ",";
  }
  return key;
}

// A schedule depends on the collective, p and the spec, not on the rank, and holds every rank's
// transfers (O(p^2) for a ring): ranks that are threads of one process share one copy while any
// of them uses it. It is built under the lock, so that p threads asking at once build it once
// rather than each holding its own (1024 ranks: 1024 copies of 2 million transfers).
std::shared_ptr<const schedule::Schedule> sharedSchedule(schedule::Collective collective, int ranks,
                                                         const schedule::AlgorithmSpec& spec) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const schedule::Schedule>> schedules;
  const std::string key = std::to_string(ranks) + "|" + planKey(collective, 0, spec);
  std::lock_guard lock(mutex);
  if (auto kept = schedules[key].lock()) return kept;
  std::erase_if(schedules, [](const auto& entry) { return entry.second.expired(); });
  auto built =
      std::make_shared<const schedule::Schedule>(model::buildSchedule(collective, ranks, spec));
  schedules[key] = built;
  return built;
}

// reduce-scatter and allgather keep NCCL's layout (rank r owns block r): offset 0 only.
void requireRankAlignedBlocks(const CollectiveOptions& options, const char* what) {
  if (options.algorithm.ownershipOffset != 0) {
    throwInvalid(std::string(what) + " with ownership offset " +
                 std::to_string(options.algorithm.ownershipOffset) +
                 ": the API keeps NCCL's layout (rank r owns block r), so the offset must be 0");
  }
}

std::uint32_t fnv1a(const std::string& text) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : text) h = (h ^ c) * 16777619u;
  return h;
}

// A premultiplied sum's factor is part of what the ranks must agree on: it goes into the hash.
transport::CallStamp stampFor(schedule::Collective collective, std::uint64_t count,
                              const Reduction& how, const schedule::AlgorithmSpec& spec) {
  transport::CallStamp stamp;
  stamp.count = count;
  std::string hashed = planKey(collective, count, spec);
  if (how.op == ReduceOp::PreMulSum) {
    hashed += "|factor " + std::to_string(std::bit_cast<std::uint64_t>(how.premultiply.factor));
  }
  stamp.specHash = fnv1a(hashed);
  stamp.collective = static_cast<std::uint8_t>(collective);
  stamp.type = static_cast<std::uint8_t>(how.type);
  stamp.op = static_cast<std::uint8_t>(how.op);
  std::strncpy(stamp.algorithm, spec.name.c_str(), sizeof stamp.algorithm - 1);
  return stamp;
}

std::size_t bufferBytes(std::uint64_t count, DataType type) {
  return checkedMultiply(count, dataTypeSize(type), "element count x datatype size");
}

}  // namespace

Communicator::Communicator(transport::Transport& transport)
    : faulty_(transport::injectFaults(transport)),
      transport_(faulty_ ? *faulty_ : transport),
      executor_(transport_) {}

const exec::RankPlan& Communicator::planFor(schedule::Collective collective, std::uint64_t count,
                                            const Reduction& how, const CollectiveOptions& options,
                                            int root) {
  PreviousCall& last = previous_;
  const double factor = how.premultiply.factor;
  if (last.plan && last.collective == collective && last.count == count && last.type == how.type &&
      last.op == how.op && last.factor == factor && last.root == root &&
      last.requested == options.algorithm && last.requestedNamed == options.algorithmNamed &&
      last.autoModel == options.autoModel && last.autoTable == options.autoTable.get()) {
    transport_.setCallStamp(last.stamp);
    return *last.plan;
  }
  if (options.algorithm.root != 0) {
    throwInvalid("algorithm spec with root " + std::to_string(options.algorithm.root) +
                 ": a call's root is its own argument; leave the spec's at 0");
  }
  schedule::AlgorithmSpec requested = options.algorithm;
  requested.root = root;
  // The default options name ring, which builds allreduce, reduce_scatter and allgather; for the
  // other collectives they stand for the collective's own default algorithm, unless the caller
  // named the ring.
  if (!options.algorithmNamed && options.algorithm == schedule::AlgorithmSpec{} &&
      !(model::findAlgorithm(options.algorithm.name).collectives &
        model::collectiveBit(collective))) {
    requested.name = model::defaultAlgorithm(collective).name;
  }
  // Every rank resolves "auto" from the same model, count and type, so all choose alike.
  const schedule::AlgorithmSpec spec = model::chooseAlgorithm(
      requested, collective, size(), count, how.type, options.autoModel, options.autoTable.get());
  // Messages of this call carry what it is, so that a rank that disagrees fails with Mismatch.
  transport_.setCallStamp(stampFor(collective, count, how, spec));
  // A premultiplied sum's plan marks its raw inputs; the others' does not need to.
  const bool marksRawInputs = how.op == ReduceOp::PreMulSum;
  const std::string key = planKey(collective, count, spec) + (marksRawInputs ? "|raw" : "");
  auto it = plans_.find(key);
  if (it == plans_.end()) {
    if (plans_.size() >= kMaxCachedPlans) plans_.clear();
    const auto s = sharedSchedule(collective, size(), spec);
    it = plans_.emplace(key, exec::planForRank(*s, rank(), count, marksRawInputs)).first;
  }
  last = {&it->second,
          collective,
          count,
          how.type,
          how.op,
          factor,
          root,
          options.algorithm,
          options.algorithmNamed,
          spec,
          options.autoModel,
          options.autoTable.get(),
          transport_.callStamp()};
  return it->second;
}

const schedule::AlgorithmSpec& Communicator::resolvedAlgorithm() const {
  if (!previous_.plan) throwInvalid("no collective call has run yet: no algorithm was resolved");
  return previous_.resolved;
}

void Communicator::execute(const exec::RankPlan& plan, const Reduction& how, const void* input,
                           void* output, const exec::ExecOptions& options) {
  exec::validate(options);
  const exec::CallDeadline deadline = exec::callDeadline(exec::Clock::now(), options.timeout);
  ++calls_;
  try {
    agreeOnFirstCall(deadline.waits);
    executor_.run(plan, how, input, output, options, deadline.waits);
  } catch (const Error& e) {
    // Tell the peers, so that they fail now with the same code rather than time out, and where
    // this rank stands; then find out from their answers (or silence) whom to blame.
    transport::WaitPoint at = executor_.waitingFor();
    at.call = calls_;
    transport_.abort(e, at);
    const auto until = std::min(deadline.report, exec::Clock::now() + deadline.window);
    std::vector<transport::PeerReport> reports = transport_.survey(until);
    reports[rank()].waiting = at;
    throw exec::attributeFailure(rank(), e, reports);
  }
}

void Communicator::agreeOnFirstCall(std::chrono::steady_clock::time_point deadline) {
  const transport::CallStamp& stamp = transport_.callStamp();
  if (std::find(agreed_.begin(), agreed_.end(), stamp) != agreed_.end()) return;
  // A dissemination barrier of empty messages, each carrying the stamp: round k exchanges with
  // the ranks 2^k away. A rank passes only along chains of equal stamps from every other rank,
  // so where any two ranks disagree, no rank passes and no data moves.
  const int p = size(), r = rank();
  std::uint32_t round = 0;
  for (int distance = 1; distance < p; distance *= 2, ++round) {
    const std::uint32_t tag = exec::kAgreementTag + round;
    const int from = (r - distance + p) % p;
    const transport::Request sent = transport_.isend((r + distance) % p, nullptr, 0, tag);
    executor_.waitFor(transport_.irecv(from, nullptr, 0, tag), {from, tag}, deadline);
    executor_.waitFor(sent, {}, deadline);
  }
  if (agreed_.size() >= kMaxCachedPlans) agreed_.clear();
  agreed_.push_back(stamp);
}

void Communicator::allreduce(const void* send, void* recv, std::uint64_t count, DataType type,
                             ReduceOp op, const CollectiveOptions& options) {
  bufferBytes(count, type);
  const Reduction how{type, op};
  const exec::RankPlan& plan = planFor(schedule::Collective::AllReduce, count, how, options);
  execute(plan, how, send, recv, options.exec);
}

void Communicator::allreducePreMulSum(const void* send, void* recv, std::uint64_t count,
                                      DataType type, double factor,
                                      const CollectiveOptions& options) {
  if (!isFloating(type)) {
    throwInvalid(std::string("a premultiplied sum of ") + dataTypeName(type) +
                 ": its factor multiplies floating types only (float16, bfloat16, float32, "
                 "float64)");
  }
  if (!std::isfinite(factor)) {
    throwInvalid("a premultiplied sum's factor " + formatNumber(factor) + ": must be finite");
  }
  bufferBytes(count, type);
  const Reduction how{type, ReduceOp::PreMulSum, PreMultiply{factor, false, false}};
  const exec::RankPlan& plan = planFor(schedule::Collective::AllReduce, count, how, options);
  execute(plan, how, send, recv, options.exec);
}

void Communicator::reduceScatter(const void* send, void* recv, std::uint64_t recvCount,
                                 DataType type, ReduceOp op, const CollectiveOptions& options) {
  requireRankAlignedBlocks(options, "reduceScatter");
  const std::uint64_t total =
      checkedMultiply(recvCount, static_cast<std::uint64_t>(size()), "reduce-scatter count x p");
  const std::size_t bytes = bufferBytes(total, type);
  const Reduction how{type, op};
  const exec::RankPlan& plan = planFor(schedule::Collective::ReduceScatter, total, how, options);
  if (work_.size() < bytes) work_.resize(bytes);
  execute(plan, how, send, work_.data(), options.exec);
  std::memmove(recv, work_.data() + plan.result.offset * dataTypeSize(type),
               plan.result.count * dataTypeSize(type));
}

void Communicator::allgather(const void* send, void* recv, std::uint64_t sendCount, DataType type,
                             const CollectiveOptions& options) {
  requireRankAlignedBlocks(options, "allgather");
  const std::uint64_t total =
      checkedMultiply(sendCount, static_cast<std::uint64_t>(size()), "allgather count x p");
  bufferBytes(total, type);
  const std::size_t blockBytes = sendCount * dataTypeSize(type);
  auto* mine = static_cast<std::byte*>(recv) + static_cast<std::size_t>(rank()) * blockBytes;
  if (mine != send) std::memmove(mine, send, blockBytes);
  const Reduction moves{type, ReduceOp::Sum};  // nothing is combined
  const exec::RankPlan& plan = planFor(schedule::Collective::AllGather, total, moves, options);
  execute(plan, moves, recv, recv, options.exec);
}

void Communicator::reduce(const void* send, void* recv, std::uint64_t count, DataType type,
                          ReduceOp op, int root, const CollectiveOptions& options) {
  const std::size_t bytes = bufferBytes(count, type);
  const Reduction how{type, op};
  const exec::RankPlan& plan = planFor(schedule::Collective::Reduce, count, how, options, root);
  void* output = recv;
  if (rank() != root) {  // partial results travel through working space, not the caller's recv
    if (work_.size() < bytes) work_.resize(bytes);
    output = work_.data();
  }
  execute(plan, how, send, output, options.exec);
}

void Communicator::broadcast(void* buffer, std::uint64_t count, DataType type, int root,
                             const CollectiveOptions& options) {
  bufferBytes(count, type);
  const Reduction moves{type, ReduceOp::Sum};  // nothing is combined
  const exec::RankPlan& plan =
      planFor(schedule::Collective::Broadcast, count, moves, options, root);
  execute(plan, moves, buffer, buffer, options.exec);
}

void Communicator::allToAll(const void* send, void* recv, std::uint64_t blockCount, DataType type,
                            const CollectiveOptions& options) {
  const std::uint64_t total =
      checkedMultiply(blockCount, static_cast<std::uint64_t>(size()), "alltoall count x p");
  const std::size_t bytes = bufferBytes(total, type);
  const Reduction moves{type, ReduceOp::Sum};  // nothing is combined
  const exec::RankPlan& plan = planFor(schedule::Collective::AllToAll, total, moves, options);
  // A block is received over one that has not been sent yet: in place, the input is copied aside.
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (bytes > 0 && in < out + bytes && out < in + bytes) {
    if (work_.size() < bytes) work_.resize(bytes);
    std::memcpy(work_.data(), in, bytes);
    in = work_.data();
  }
  execute(plan, moves, in, out, options.exec);
}

}  // namespace ringlab
