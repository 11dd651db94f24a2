#pragma once
// The bucketings users get today, as the planner compares them with the optimum. Each is a list
// of buckets for predict() (execution.hpp); the rules are restated here from the projects'
// documentation and source, and the code is ringlab's own.
#include <cstdint>
#include <vector>

#include "ringlab/plan/execution.hpp"

namespace ringlab::plan {

// PyTorch DistributedDataParallel's defaults: bucket_cap_mb = 25 (MiB) and a first bucket of
// 1 MiB (torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES).
inline constexpr std::uint64_t kDdpDefaultCapBytes = 25ull << 20;
inline constexpr std::uint64_t kDdpFirstBucketBytes = 1ull << 20;

// DDP's buckets as torch 1.13's reducer runs them from the second iteration on (the first
// iteration is one bucket; with find_unused_parameters=False, the default, the reducer then
// rebuilds its buckets with compute_bucket_assignment_by_size over the gradients in the order
// they became ready in that iteration): tensors in ready order; a bucket takes whole tensors,
// never split, and closes as soon as it holds at least its limit: firstCapBytes for the first
// bucket, capBytes after. Buckets are reduced in that order. (With find_unused_parameters=True
// DDP never rebuilds and keeps buckets in reverse parameter order: not modelled.)
std::vector<Bucket> ddpBuckets(const Timeline& timeline, std::uint64_t capBytes,
                               std::uint64_t firstCapBytes = kDdpFirstBucketBytes);

// Horovod's defaults: HOROVOD_FUSION_THRESHOLD 128 MiB, HOROVOD_CYCLE_TIME 1 ms.
inline constexpr std::uint64_t kHorovodFusionThresholdBytes = 128ull << 20;
inline constexpr double kHorovodCycleSeconds = 1e-3;

// Horovod's background loop: a cycle starts one cycle time after the previous one started, or
// when its communication is done if that is later (the first at the backward's start); it fuses
// the tensors ready by then, in ready order, into buffers of at most the threshold (a larger
// tensor goes alone), which are reduced one after another from the cycle's start.
std::vector<Bucket> horovodBuckets(const Timeline& timeline, const BucketCost& cost,
                                   std::uint64_t thresholdBytes = kHorovodFusionThresholdBytes,
                                   double cycleSeconds = kHorovodCycleSeconds);

// One bucket per tensor (no fusion: wait-free backpropagation as in Poseidon), and everything in
// one bucket (no overlap).
std::vector<Bucket> perTensorBuckets(const Timeline& timeline);
std::vector<Bucket> singleBucket(const Timeline& timeline);

// The greedy merge of MG-WFBP (Shi, Chu and Li, INFOCOM 2019): walking tensors in ready order, a
// tensor joins the open bucket when that bucket could not start before the tensor is ready anyway
// (the stream is still busy with the previous bucket), which saves a startup at no delay;
// otherwise the open bucket is closed and the tensor opens the next.
std::vector<Bucket> mgwfbpBuckets(const Timeline& timeline, const BucketCost& cost);

// The bucket_cap_mb to pass to DDP that comes closest to a target: every cap on a geometric grid
// (ratio `step`) from `minCapBytes` to the total bytes is priced with ddpBuckets; the least
// predicted iteration wins, and among equal iterations (communication hidden) the largest cap (the
// fewest buckets).
inline constexpr std::uint64_t kDdpCapSearchMinBytes = 16 << 10;
struct DdpCapChoice {
  std::uint64_t capBytes = 0;
  double lastDone_s = 0;
  double iteration_s = 0;
  // The smallest cap from which every cap on the grid up to capBytes predicts the same iteration:
  // any of them is as good.
  std::uint64_t asGoodFromBytes = 0;
};
DdpCapChoice bestDdpCap(const Timeline& timeline, const BucketCost& cost,
                        std::uint64_t minCapBytes = kDdpCapSearchMinBytes, double step = 1.02);

}  // namespace ringlab::plan
