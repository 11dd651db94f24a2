#pragma once
// The contiguous bucketing (runs of tensors in ready order) whose last bucket completes first,
// under the execution model of execution.hpp. Exact: a dynamic programme over prefixes.
//
// C(i), the earliest completion of the first i tensors in buckets, is
//   C(0) = 0,  C(i) = min over j < i of  max(C(j), ready(i-1)) + cost(bytes of tensors j..i-1),
// because a bucket ending at tensor i-1 is ready when that tensor is (ready times are in order)
// and starts when the stream is free. Two facts prune the search without losing optimality, both
// from cost being nondecreasing in bytes (every modelled algorithm's is, so their minimum is):
// C is nondecreasing in i (dropping the last tensor never delays a plan), so among the j with
// C(j) <= ready(i-1) only the largest can win; and once ready(i-1) + cost(bytes j..i-1) reaches
// the best found, no smaller j can beat it. A third test skips j when merging its plan's last
// bucket into the new one provably does no worse (cost bounds from a grid, no pricing). Worst
// case O(n^2) cost evaluations: when the communication falls far behind the backward, every j in
// the backlog gives nearly the same time (they differ by rounding only), and an exact search must
// price them all. The benchmark
// (bench/plan_bench.cpp) measures 10,000 tensors in both regimes.
#include <cstddef>
#include <vector>

#include "ringlab/plan/execution.hpp"

namespace ringlab::plan {

struct OptimalPlan {
  std::vector<std::size_t> starts;  // first tensor index of each bucket
  double lastDone_s = 0;
  std::size_t costEvaluations = 0;  // how much work the pruned search did
};

// Throws InvalidArgument for an invalid timeline (validate()).
OptimalPlan optimalBuckets(const Timeline& timeline, const BucketCost& cost);

}  // namespace ringlab::plan
