#pragma once
// The contiguous bucketing (runs of tensors in ready order) whose last bucket completes first,
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
// The benchmark (bench/plan_bench.cpp) measures 10,000 tensors in three regimes.
#include <cstddef>
#include <vector>

#include "ringlab/plan/execution.hpp"

namespace ringlab::plan {

struct OptimalPlan {
  std::vector<std::size_t> starts;  // first tensor index of each bucket
  double lastDone_s = 0;
  std::size_t candidatesExamined = 0;  // the search's work: queue fronts looked at
};

// Throws InvalidArgument for an invalid timeline (validate()).
OptimalPlan optimalBuckets(const Timeline& timeline, const BucketCost& cost);

}  // namespace ringlab::plan
