#pragma once
// What the simulator runs: a schedule's steps reduced to who sends how many bytes to whom, with
// runs of identical steps stored once with a repeat count. A ring AllReduce is then two groups
// (reduce-scatter and allgather) of p transfers each, whatever p is, which is what lets the
// simulator reach p = 65536 where the Schedule itself (2p(p-1) transfers) would not fit in memory.
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/schedule/ring_order.hpp"
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::sim {

struct SimTransfer {
  int src = 0;
  int dst = 0;
  double bytes = 0;
  bool reduce = false;  // the receiver reduces (gamma per byte) rather than copies
  bool operator==(const SimTransfer&) const = default;
};

struct StepGroup {
  std::string phase;
  std::vector<SimTransfer> transfers;  // one step
  std::uint64_t repeats = 1;           // run this many times in a row
};

struct Workload {
  std::string algorithm;
  int ranks = 1;
  std::vector<StepGroup> groups;
  std::uint64_t steps() const;
};

// Byte counts from the schedule's blocks (core/partition.hpp), consecutive identical steps merged.
Workload workloadFromSchedule(const schedule::Schedule& schedule, std::uint64_t count,
                              DataType type);

// The ring AllReduce over k rings (k = 1: ring, else multi_ring) without building its Schedule:
// in each of the 2(p-1) steps every rank sends one chunk per ring to its successor there. Every
// chunk is priced at the largest block (count / (k p) rounded up), as the closed-form model does;
// when k p divides the count this is exactly workloadFromSchedule of the same schedule (tested).
Workload ringAllReduceWorkload(const std::vector<schedule::RingOrder>& rings, std::uint64_t count,
                               DataType type);

// Bytes a materialised Schedule of `transfers` transfers would take, to refuse it up front.
std::uint64_t scheduleBytesEstimate(std::uint64_t transfers);

}  // namespace ringlab::sim
