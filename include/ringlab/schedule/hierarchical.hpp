#pragma once
// Hierarchical (two-level) AllReduce: p = m nodes x l ranks per node, rank r on node r / l with
// local index r mod l (consecutive ranks share a node, as launchers place them).
//   1. intra-node ring reduce-scatter (l-1 steps, all nodes at once): local rank i ends holding
//      shard i reduced over its node;
//   2. inter-node ring AllReduce of shard i among the m ranks with local index i (2(m-1) steps,
//      all l shards at once): shard i is now reduced over all p ranks;
//   3. intra-node ring allgather of the shards (l-1 steps).
// 2(l-1) + 2(m-1) steps instead of the flat ring's 2(p-1); only the shard, n/l, crosses nodes.
//
// Block layout: blocks = p, read as l shards of m consecutive blocks (shard i = blocks
// [i*m, (i+1)*m)). Phases 1 and 3 move whole shards (multi-block ranges); phase 2 splits shard i
// into its m blocks, one per node. Every level's split is then exact in whole blocks, and the
// partition keeps all blocks within one element of each other. With count divisible by p each
// rank sends 2(l-1)/l n + 2(m-1)/p n bytes. All rings use the identity order within their level.
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

// Throws InvalidArgument unless ranksPerNode >= 1 divides p.
Schedule hierarchicalAllReduce(int ranks, int ranksPerNode);

}  // namespace ringlab::schedule
