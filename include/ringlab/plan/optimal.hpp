#pragma once
// The contiguous bucketing (runs of tensors in ready order) with the least predicted iteration,
// under the execution model of execution.hpp. Exact: a dynamic programme over prefixes.
//
// C(i), the earliest completion of the first i tensors in buckets, is
//   C(0) = 0,  C(i) = min over j < i of  max(C(j), ready(i-1)) + cost(bytes of tensors j..i-1),
// because a bucket ending at tensor i-1 is ready when that tensor is (ready times are in order)
// and starts when the stream is free. Computed in O(n * (sum of the cost pieces' periods)), with
// no pruning that depends on the instance:
// - cost is nondecreasing in bytes, so C is nondecreasing in i, and the j with C(j) <= ready(i-1)
//   (the bucket starts at its ready time) are a prefix of which only the largest can win;
// - for the other j the bucket starts at C(j), and for each piece of the cost
//   (BucketCost::pieces: residue plus linear in the count, on a range of counts) the best j is a
//   sliding-window minimum per residue class, since both ends of the window only move forward.
//
// Plans tie whenever the communication is hidden: every plan whose last bucket is done by the
// backward's end predicts the same iteration. Of the plans that reach the least iteration, the
// search returns one with the fewest buckets (each costs a launch and a hook in practice, which
// the model leaves out), and of those the earliest done: pass k of the same programme over
// C_{k-1} in place of C gives the best completion in at most k buckets, and the passes stop at
// the first that meets the least iteration: as many passes as the answer has buckets, a handful
// to a few dozen in the benchmark. Past kTieBreakPasses the search keeps the first optimum (just
// as fast, with more buckets than needed) and says so (OptimalPlan::fewest), which bounds its time
// at that many times the first pass's.
// The benchmark (bench/plan_bench.cpp) measures 10,000 tensors in three regimes.
#include <cstddef>
#include <vector>

#include "ringlab/plan/execution.hpp"

namespace ringlab::plan {

inline constexpr std::size_t kTieBreakPasses = 32;

struct OptimalPlan {
  std::vector<std::size_t> starts;     // first tensor index of each bucket
  double lastDone_s = 0;               // when its last bucket is done
  std::size_t candidatesExamined = 0;  // the search's work: queue fronts looked at, every pass
  // The fewest buckets of the plans that reach the least iteration; false when kTieBreakPasses ran
  // out first.
  bool fewest = true;
};

// Throws InvalidArgument for an invalid timeline (validate()).
OptimalPlan optimalBuckets(const Timeline& timeline, const BucketCost& cost);

}  // namespace ringlab::plan
