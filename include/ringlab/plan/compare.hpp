#pragma once
// Every bucketing `ringlab plan` shows, priced under one execution model: the optimum beside the
// defaults users have (DDP, Horovod, per tensor, one bucket, MG-WFBP), the DDP bucket_cap_mb
// closest to the optimum, extra DDP caps and a bucketing the user gives.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/core/progress.hpp"
#include "ringlab/plan/baselines.hpp"
#include "ringlab/plan/execution.hpp"
#include "ringlab/plan/optimal.hpp"

namespace ringlab::plan {

struct NamedPlan {
  std::string name, note;
  std::vector<Bucket> buckets;
  PredictedIteration prediction;
};

struct CompareOptions {
  std::vector<std::uint64_t> ddpCapBytes;            // also price DDP with these caps
  std::optional<std::vector<std::size_t>> evaluate;  // also price these bucket starts
  // Hears each step start and end (stage "optimal buckets", "ddp cap search", a plan's name).
  ProgressCallback progress;
};

struct PlanComparison {
  OptimalPlan optimal;
  DdpCapChoice ddpCap;  // the bucket_cap_mb closest to the optimum
  // In order: optimal, ddp-default, ddp-best-cap, horovod-default, per-tensor, single, mg-wfbp,
  // ddp-cap-<MiB> per extra cap, evaluated.
  std::vector<NamedPlan> plans;
  // The optimum's last bucket is done by the backward's end: communication costs the iteration
  // nothing, and every plan done by then ties with the optimum.
  bool communicationHidden = false;
  const PredictedIteration& best() const { return plans.front().prediction; }
  // DDP's best cap predicts the optimum's iteration: then every cap from ddpCap.asGoodFromBytes
  // to ddpCap.capBytes is as good as the optimum.
  bool ddpCapReachesOptimum() const {
    return sameIteration(ddpCap.iteration_s, best().iteration_s);
  }
};

// Throws InvalidArgument for an invalid timeline or an out-of-range bucket start.
PlanComparison comparePlans(const Timeline& timeline, const BucketCost& cost,
                            const CompareOptions& options = {});

// "0,12,40": bucket start indices in ready order. Throws InvalidArgument naming the item, starting
// with `what`, the caller's name for the list.
std::vector<std::size_t> parseBucketStarts(std::string_view text,
                                           std::string_view what = "the bucket starts");

// "0.1,1,25": bucket_cap_mb values (MiB, as DDP reads them), returned in bytes. Throws
// InvalidArgument naming the item, starting with `what`.
std::vector<std::uint64_t> parseDdpCaps(std::string_view text,
                                        std::string_view what = "the DDP caps");

// How much slower an iteration of `iteration_s` is than the optimum's: 0.05 is 5 % above it.
double aboveOptimum(double iteration_s, const PlanComparison& comparison);

// A cap in bytes as DDP's bucket_cap_mb reads it ("0.5", "25").
std::string capMiB(std::uint64_t capBytes);

// One line on the bucket copies the prediction prices (none with views, or at which bandwidth);
// `copyBandwidthWhat` is the caller's name for the copy bandwidth a user may give.
std::string describeCopies(const Timeline& timeline, bool views,
                           std::string_view copyBandwidthWhat = "a copy bandwidth");

}  // namespace ringlab::plan
