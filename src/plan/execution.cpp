#include "ringlab/plan/execution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ringlab/core/error.hpp"
#include "ringlab/model/predict.hpp"

namespace ringlab::plan {

namespace {

// A measured curve's pieces: its time up to the first size, then each segment's line as a
// function of the count, on the counts whose bytes fall in the segment (the last one unbounded).
std::vector<CostPiece> measuredPieces(const model::MeasuredCurve& curve, std::uint64_t e) {
  constexpr std::uint64_t kAny = std::numeric_limits<std::uint64_t>::max();
  const auto& pts = curve.points();
  std::vector<CostPiece> out = {CostPiece{0, pts.front().bytes / e, 1, 0, {pts.front().seconds}}};
  for (std::size_t k = 0; k + 1 < pts.size(); ++k) {
    const auto& a = pts[k];
    const auto& b = pts[k + 1];
    const double slope = (b.seconds - a.seconds) / static_cast<double>(b.bytes - a.bytes);
    const std::uint64_t first = (a.bytes + e - 1) / e;
    const std::uint64_t last = k + 2 == pts.size() ? kAny : b.bytes / e;
    if (first > last) continue;  // no whole count of elements falls in this segment
    out.push_back({first,
                   last,
                   1,
                   slope * static_cast<double>(e),
                   {a.seconds - slope * static_cast<double>(a.bytes)}});
  }
  return out;
}

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

BucketCost::BucketCost(int ranks, DataType type, model::MeasuredCurve measured)
    : BucketCost(ranks, type, model::ModelParams{}) {
  measured_ = std::move(measured);
}

double BucketCost::seconds(std::uint64_t bytes) const {
  if (ranks_ == 1) return 0;  // nothing to exchange
  if (measured_) return measured_->seconds(bytes);
  return model::predictAllReduce(autoSpec(), ranks_, bytes / dataTypeSize(type_), type_, params_)
      .total_s();
}

std::vector<CostPiece> BucketCost::pieces() const {
  constexpr std::uint64_t kAny = std::numeric_limits<std::uint64_t>::max();
  if (ranks_ == 1) return {CostPiece{0, kAny, 1, 0, {0.0}}};
  if (measured_) return measuredPieces(*measured_, dataTypeSize(type_));
  // Per algorithm, the regimes as counts (the working set decides, and it differs between
  // algorithms), each with parameters that no longer switch inside it.
  const std::uint64_t e = dataTypeSize(type_);
  std::vector<CostPiece> out;
  for (const std::string& name : model::candidateAlgorithms()) {
    schedule::AlgorithmSpec spec;
    spec.name = name;
    const auto regime = [&](std::uint64_t count) {
      return model::predictAllReduce(spec, ranks_, count, type_, params_).regime;
    };
    // The first count priced from memory, found by bisection (the working set grows with the
    // count); none where even the model's largest message is priced in cache.
    const std::uint64_t largest = model::kMaxModelBytes / e;
    const bool switches = regime(largest) == model::Regime::Memory;
    std::uint64_t inCache = 0, fromMemory = largest;
    while (switches && fromMemory - inCache > 1) {
      const std::uint64_t mid = inCache + (fromMemory - inCache) / 2;
      (regime(mid) == model::Regime::Memory ? fromMemory : inCache) = mid;
    }
    const std::pair<std::uint64_t, model::Regime> regimes[] = {{0, model::Regime::Cache},
                                                               {fromMemory, model::Regime::Memory}};
    for (const auto& [first, which] : regimes) {
      if (which == model::Regime::Memory && !switches) continue;
      const model::ModelParams m = model::inRegime(params_, which);
      const auto cost = [&](std::uint64_t count) {
        return model::predictAllReduce(spec, ranks_, count, type_, m).total_s();
      };
      const std::uint64_t last = which == model::Regime::Cache && switches ? fromMemory - 1 : kAny;
      CostPiece piece{first, last, model::countPeriod(name, ranks_), 0, {}};
      for (std::uint64_t c = 0; c < piece.period; ++c) piece.residue_s.push_back(cost(c));
      // The rise per period, read over many periods so that rounding does not skew it.
      constexpr std::uint64_t kPeriods = 1 << 20;
      piece.perPeriod_s = (cost(piece.period * kPeriods) - cost(0)) / static_cast<double>(kPeriods);
      out.push_back(std::move(piece));
    }
  }
  return out;
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
  if (measured_) return "measured";
  return model::chooseAlgorithm(autoSpec(), schedule::Collective::AllReduce, ranks_,
                                bytes / dataTypeSize(type_), type_, params_)
      .name;
}

bool sameIteration(double a_s, double b_s) {
  return std::abs(a_s - b_s) <= 1e-12 * std::max(std::abs(a_s), std::abs(b_s));
}

PredictedIteration predict(const Timeline& timeline, const std::vector<Bucket>& buckets,
                           const BucketCost& cost) {
  const std::size_t n = timeline.tensors.size();
  std::vector<int> seen(n, 0);
  PredictedIteration out;
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
