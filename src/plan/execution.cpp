#include "ringlab/plan/execution.hpp"

#include <algorithm>

#include "plan/describe.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/model/predict.hpp"

namespace ringlab::plan {

namespace {

schedule::AlgorithmSpec autoSpec() {
  schedule::AlgorithmSpec spec;
  spec.name = model::kAutoAlgorithm;
  return spec;
}

}  // namespace

BucketCost::BucketCost(int ranks, DataType type, const model::ModelParams& params)
    : ranks_(ranks), type_(type), params_(params) {
  if (ranks < 1)
    throwInvalid("-p " + std::to_string(ranks) + ": the planner needs at least 1 rank");
}

double BucketCost::seconds(std::uint64_t bytes) const {
  if (ranks_ == 1) return 0;  // nothing to exchange
  return model::predictAllReduce(autoSpec(), ranks_, bytes / dataTypeSize(type_), type_, params_)
      .total_s();
}

Timeline withBucketCopies(const Timeline& timeline, double copyBytesPerSecond, bool views) {
  if (views || !(copyBytesPerSecond > 0)) return timeline;
  Timeline out = timeline;
  double copied = 0;
  for (GradTensor& g : out.tensors) {
    copied += static_cast<double>(g.bytes()) / copyBytesPerSecond;
    g.ready_s += copied;
  }
  out.backwardEnd_s += copied;
  out.optimizerStep_s += copied;  // the copy back, the same bytes
  return out;
}

std::string BucketCost::algorithm(std::uint64_t bytes) const {
  if (ranks_ == 1) return "none";
  return model::chooseAlgorithm(autoSpec(), schedule::Collective::AllReduce, ranks_,
                                bytes / dataTypeSize(type_), type_, params_)
      .name;
}

Prediction predict(const Timeline& timeline, const std::vector<Bucket>& buckets,
                   const BucketCost& cost) {
  const std::size_t n = timeline.tensors.size();
  std::vector<int> seen(n, 0);
  Prediction out;
  double previousDone = 0;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    if (buckets[b].tensors.empty()) throwInvalid("bucket " + std::to_string(b) + " is empty");
    BucketTiming t;
    for (std::size_t i : buckets[b].tensors) {
      if (i >= n) {
        throwInvalid("bucket " + std::to_string(b) + ": tensor index " + std::to_string(i) +
                     " is out of range (the timeline has " + std::to_string(n) + " tensors)");
      }
      if (seen[i]++) throwInvalid("tensor " + std::to_string(i) + " is in more than one bucket");
      t.bytes += timeline.tensors[i].bytes();
      t.ready_s = std::max(t.ready_s, timeline.tensors[i].ready_s);
    }
    t.start_s = std::max({t.ready_s, previousDone, buckets[b].notBefore_s});
    const double d = cost.seconds(t.bytes);
    t.end_s = t.start_s + d;
    t.algorithm = cost.algorithm(t.bytes);
    out.communication_s += d;
    previousDone = t.end_s;
    out.buckets.push_back(std::move(t));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!seen[i])
      throwInvalid("tensor " + std::to_string(i) + " ('" + timeline.tensors[i].name +
                   "') is in no bucket");
  }
  out.lastDone_s = previousDone;
  out.exposed_s = std::max(0.0, out.lastDone_s - timeline.backwardEnd_s);
  out.iteration_s = timeline.forward_s + std::max(timeline.backwardEnd_s, out.lastDone_s) +
                    timeline.optimizerStep_s;
  return out;
}

std::vector<Bucket> bucketsFromStarts(const std::vector<std::size_t>& starts,
                                      std::size_t tensorCount) {
  if (starts.empty() || starts.front() != 0) {
    throwInvalid("bucket starts must begin with 0 (the first tensor in backward order)");
  }
  std::vector<Bucket> out;
  for (std::size_t b = 0; b < starts.size(); ++b) {
    if (starts[b] >= tensorCount) {
      throwInvalid("bucket start " + std::to_string(starts[b]) +
                   " is out of range (the timeline has " + std::to_string(tensorCount) +
                   " tensors, indices 0.." + std::to_string(tensorCount - 1) + ")");
    }
    if (b > 0 && starts[b] <= starts[b - 1]) {
      throwInvalid("bucket start " + std::to_string(starts[b]) + " does not follow " +
                   std::to_string(starts[b - 1]) + "; starts must be strictly increasing");
    }
    const std::size_t end = b + 1 < starts.size() ? starts[b + 1] : tensorCount;
    Bucket bucket;
    for (std::size_t i = starts[b]; i < std::min(end, tensorCount); ++i)
      bucket.tensors.push_back(i);
    out.push_back(std::move(bucket));
  }
  return out;
}

std::vector<std::size_t> startsOf(const std::vector<Bucket>& buckets) {
  std::vector<std::size_t> starts;
  std::size_t next = 0;
  for (const Bucket& b : buckets) {
    for (std::size_t k = 0; k < b.tensors.size(); ++k) {
      if (b.tensors[k] != next + k) return {};
    }
    starts.push_back(next);
    next += b.tensors.size();
  }
  return starts;
}

}  // namespace ringlab::plan
