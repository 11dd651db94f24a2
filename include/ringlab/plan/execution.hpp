#pragma once
// The execution model every plan is priced under, stated once:
//
// - one communication stream: buckets are reduced one at a time, in bucket order (as PyTorch
//   DDP's reducer launches them);
// - a bucket's AllReduce starts when the last of its gradients is ready and the previous bucket
//   is done (and, for a fusion cycle such as Horovod's, not before the cycle that picks it up);
// - its AllReduce costs what the model layer predicts for the algorithm that `--algo auto` would
//   pick at that size (model::predictAllReduce with "auto"), or, when the user has timed their
//   own AllReduce, the measured time interpolated (model::MeasuredCurve);
// - unless gradients are views into the bucket buffer, each gradient is copied into its bucket
//   when it is ready, on the backward's own thread (DDP's autograd hook does this), which delays
//   every later gradient and the backward's end; and the buckets are copied back into the
//   gradients after the last AllReduce (DDP's finalisation), before the optimiser step; both at
//   the measured memory copy bandwidth (withBucketCopies);
// - an iteration is forward + max(backward end, last bucket done) + copy-out + optimiser step.
//
// Left out: the backward and the communication competing for the same cores or memory bus (they
// overlap perfectly here), per-bucket launch overheads beyond the model's alpha, and stragglers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <optional>

#include "ringlab/model/measured_curve.hpp"
#include "ringlab/model/params.hpp"
#include "ringlab/plan/timeline.hpp"

namespace ringlab::plan {

// One piece of a bucket's cost, in the shape the optimal search exploits: for a bucket of c
// elements with minCount <= c <= maxCount, residue_s[c % period] + perPeriod_s * (c / period).
struct CostPiece {
  std::uint64_t minCount = 0;
  std::uint64_t maxCount = 0;
  std::uint64_t period = 1;
  double perPeriod_s = 0;
  std::vector<double> residue_s;  // period entries
  double seconds(std::uint64_t count) const {
    return residue_s[count % period] + perPeriod_s * static_cast<double>(count / period);
  }
};

// What one bucket costs on the communication stream.
class BucketCost {
 public:
  // Throws InvalidArgument for p < 1.
  BucketCost(int ranks, DataType type, const model::ModelParams& params);
  // Priced from a measured curve instead (its p is the caller's to check).
  BucketCost(int ranks, DataType type, model::MeasuredCurve measured);

  // Seconds for the AllReduce of a bucket of `bytes` (a whole number of elements).
  double seconds(std::uint64_t bytes) const;
  // The algorithm "auto" picks for a bucket of `bytes` ("measured" for a measured curve).
  std::string algorithm(std::uint64_t bytes) const;
  int ranks() const { return ranks_; }
  // The same cost as pieces: seconds(bytes) is the least of the pieces whose range holds the
  // bucket's element count. One piece per modelled algorithm and memory regime, since "auto"
  // takes the fastest algorithm and each one's closed form is periodic plus linear in the count
  // within a regime (model::countPeriod); one per segment of a measured curve.
  std::vector<CostPiece> pieces() const;

 private:
  int ranks_;
  DataType type_;
  model::ModelParams params_;
  std::optional<model::MeasuredCurve> measured_;
};

// The timeline as the communication sees it when gradients are copied into bucket buffers at
// `copyBytesPerSecond`: each ready time (and the backward's end) later by the copies of that
// gradient and all before it; the copy back of every bucket added to the optimiser step, since it
// sits between the last AllReduce and the step. Unchanged when copyBytesPerSecond is 0 (not
// measured) or `views` (gradients are views into the buckets, DDP's gradient_as_bucket_view).
Timeline withBucketCopies(const Timeline& timeline, double copyBytesPerSecond, bool views);

struct Bucket {
  std::vector<std::size_t> tensors;  // indices into Timeline::tensors, in reduction order
  double notBefore_s = 0;            // earliest start besides readiness (a fusion cycle's tick)
};

struct BucketTiming {
  std::uint64_t bytes = 0;
  double ready_s = 0;  // last gradient ready
  double start_s = 0;  // max(ready, previous done, notBefore)
  double end_s = 0;
  std::string algorithm;
};

struct PredictedIteration {
  std::vector<BucketTiming> buckets;
  double lastDone_s = 0;   // when the last bucket completes
  double exposed_s = 0;    // communication after the backward's end: max(0, lastDone - backwardEnd)
  double iteration_s = 0;  // forward + max(backwardEnd, lastDone) + optimiser step
  double communication_s = 0;  // sum of bucket durations
};

// Two predicted iterations are the same plan's worth: equal within the rounding of the sums.
bool sameIteration(double a_s, double b_s);

// Prices `buckets` under the execution model. Throws InvalidArgument when a tensor index is out of
// range, a bucket is empty, or the buckets do not hold every tensor exactly once.
PredictedIteration predict(const Timeline& timeline, const std::vector<Bucket>& buckets,
                           const BucketCost& cost);

// Contiguous buckets in ready order from their start indices (first must be 0, strictly
// increasing, each < tensor count); throws InvalidArgument naming the offending index.
std::vector<Bucket> bucketsFromStarts(const std::vector<std::size_t>& starts,
                                      std::size_t tensorCount);

// The start index of each bucket, when the buckets are contiguous runs in ready order; empty
// otherwise.
std::vector<std::size_t> startsOf(const std::vector<Bucket>& buckets);

}  // namespace ringlab::plan
