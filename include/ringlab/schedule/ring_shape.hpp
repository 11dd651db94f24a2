#pragma once
// The shape of a ring AllReduce (ring and multi_ring) without its Schedule: how many steps, how the
// buffer is cut into chunks, and which ring orders a spec runs. The model's closed forms, the
// simulator's ring workload, the topology's ring search and the front ends price and describe
// rings from these; tests hold each equal to the Schedule that ring.hpp and multi_ring.hpp build.
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/schedule/ring_order.hpp"

namespace ringlab::schedule {

// Steps of one ring phase (reduce-scatter or allgather) over p ranks: p - 1.
std::uint64_t ringPhaseSteps(int ranks);
// Steps of the ring AllReduce: 2(p - 1), whatever the number of channels.
std::uint64_t ringAllReduceSteps(int ranks);

// Chunks a k-channel ring cuts the buffer into: k p (the Schedule's blocks).
std::uint64_t ringChunks(int ranks, int channels = 1);
// Elements in chunk `index` of `count` cut into `chunks` (core/partition.hpp's layout: the first
// count mod chunks hold one more).
std::uint64_t ringChunkElements(std::uint64_t count, std::uint64_t chunks, std::uint64_t index);
// The largest chunk, ceil(count / chunks): it sets every ring step's time.
std::uint64_t ringLargestChunkElements(std::uint64_t count, std::uint64_t chunks);

// The ring orders `spec` runs over p ranks: ring its one order (0..p-1 when none is given),
// multi_ring its k channel orders (multi_ring.hpp's derivation); empty for other algorithms.
std::vector<RingOrder> ringOrdersOf(const AlgorithmSpec& spec, int ranks);
// The one order of a single-ring spec, whatever its name: its ringOrder, 0..p-1 when none is given.
RingOrder singleRingOrder(const AlgorithmSpec& spec, int ranks);

// The ring order(s) a spec runs, for run records: "0,1,2,3" for ring, the k channel orders joined
// by " | " for multi_ring, and a short note for algorithms without a ring order.
std::string ringOrderText(const AlgorithmSpec& spec, int ranks);

}  // namespace ringlab::schedule
