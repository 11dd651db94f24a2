#include "ringlab/plan/baselines.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ringlab/core/error.hpp"

namespace ringlab::plan {

std::vector<Bucket> ddpBuckets(const Timeline& timeline, std::uint64_t capBytes,
                               std::uint64_t firstCapBytes) {
  std::vector<Bucket> out;
  Bucket open;
  std::uint64_t openBytes = 0;
  for (std::size_t i = 0; i < timeline.tensors.size(); ++i) {  // ready order, as DDP rebuilds
    open.tensors.push_back(i);
    openBytes += timeline.tensors[i].bytes();
    if (openBytes >= (out.empty() ? firstCapBytes : capBytes)) {
      out.push_back(std::move(open));
      open = Bucket{};
      openBytes = 0;
    }
  }
  if (!open.tensors.empty()) out.push_back(std::move(open));
  return out;
}

std::vector<Bucket> horovodBuckets(const Timeline& timeline, const BucketCost& cost,
                                   std::uint64_t thresholdBytes, double cycleSeconds) {
  if (!(cycleSeconds > 0)) throwInvalid("Horovod cycle time must be > 0");
  const auto& ts = timeline.tensors;
  std::vector<Bucket> out;
  double cycle = 0, streamFree = 0;
  std::size_t next = 0;
  while (next < ts.size()) {
    if (ts[next].ready_s > cycle) {
      // Idle cycles until the next gradient is ready.
      cycle += cycleSeconds * std::ceil((ts[next].ready_s - cycle) / cycleSeconds);
      continue;
    }
    double t = std::max(cycle, streamFree);
    Bucket open;
    open.notBefore_s = cycle;
    std::uint64_t openBytes = 0;
    const auto close = [&] {
      t = std::max(t, ts[open.tensors.back()].ready_s) + cost.seconds(openBytes);
      out.push_back(std::move(open));
      open = Bucket{};
      open.notBefore_s = cycle;
      openBytes = 0;
    };
    for (; next < ts.size() && ts[next].ready_s <= cycle; ++next) {
      if (!open.tensors.empty() && openBytes + ts[next].bytes() > thresholdBytes) close();
      open.tensors.push_back(next);
      openBytes += ts[next].bytes();
    }
    close();
    streamFree = t;
    cycle = std::max(cycle + cycleSeconds, streamFree);
  }
  return out;
}

std::vector<Bucket> perTensorBuckets(const Timeline& timeline) {
  std::vector<Bucket> out(timeline.tensors.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i].tensors = {i};
  return out;
}

std::vector<Bucket> singleBucket(const Timeline& timeline) {
  Bucket b;
  b.tensors.resize(timeline.tensors.size());
  std::iota(b.tensors.begin(), b.tensors.end(), 0);
  return {b};
}

std::vector<Bucket> mgwfbpBuckets(const Timeline& timeline, const BucketCost& cost) {
  const auto& ts = timeline.tensors;
  std::vector<Bucket> out;
  if (ts.empty()) return out;
  double previousDone = 0;
  Bucket open{{0}, 0};
  std::uint64_t openBytes = ts[0].bytes();
  for (std::size_t i = 1; i < ts.size(); ++i) {
    // The open bucket is ready at its last tensor's time; it could start at:
    const double start = std::max(previousDone, ts[open.tensors.back()].ready_s);
    if (start >= ts[i].ready_s) {
      open.tensors.push_back(i);
      openBytes += ts[i].bytes();
      continue;
    }
    previousDone = start + cost.seconds(openBytes);
    out.push_back(std::move(open));
    open = Bucket{{i}, 0};
    openBytes = ts[i].bytes();
  }
  out.push_back(std::move(open));
  return out;
}

DdpCapChoice bestDdpCap(const Timeline& timeline, const BucketCost& cost, std::uint64_t minCapBytes,
                        double step) {
  if (!(step > 1)) throwInvalid("DDP cap search step must be > 1");
  const std::uint64_t total = timeline.totalBytes();
  DdpCapChoice best;
  bool first = true, tieBroken = false;  // the previous cap was slower than the best
  for (double cap = static_cast<double>(std::max<std::uint64_t>(minCapBytes, 1));; cap *= step) {
    const auto capBytes = static_cast<std::uint64_t>(std::min(cap, static_cast<double>(total)));
    const PredictedIteration p = predict(timeline, ddpBuckets(timeline, capBytes), cost);
    const bool same = !first && sameIteration(p.iteration_s, best.iteration_s);
    if (first || (!same && p.iteration_s < best.iteration_s)) {
      best = {capBytes, p.lastDone_s, p.iteration_s, capBytes};
    } else if (same) {
      // Equal predictions go to the larger cap: fewer buckets, so less exposure to per-bucket
      // costs the model does not have.
      best = {capBytes, p.lastDone_s, best.iteration_s,
              tieBroken ? capBytes : best.asGoodFromBytes};
    }
    tieBroken = !first && !same && p.iteration_s > best.iteration_s;
    first = false;
    if (capBytes >= total) break;
  }
  return best;
}

}  // namespace ringlab::plan
