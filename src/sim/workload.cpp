#include "ringlab/sim/workload.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/core/partition.hpp"
#include "ringlab/schedule/ring_shape.hpp"

namespace ringlab::sim {

std::uint64_t Workload::steps() const {
  std::uint64_t total = 0;
  for (const StepGroup& g : groups) total += g.repeats;
  return total;
}

Workload workloadFromSchedule(const schedule::Schedule& s, std::uint64_t count, DataType type) {
  Workload w;
  w.algorithm = s.algorithm;
  w.ranks = s.ranks;
  const double elementBytes = static_cast<double>(dataTypeSize(type));
  for (const schedule::Step& step : s.steps) {
    StepGroup g;
    g.phase = step.phase;
    for (const schedule::Transfer& t : step.transfers) {
      const double bytes =
          static_cast<double>(schedule::spanElements(s, count, t.firstBlock, t.lastBlock)) *
          elementBytes;
      g.transfers.push_back({t.src, t.dst, bytes, t.mode == schedule::RecvMode::Reduce});
    }
    if (!w.groups.empty() && w.groups.back().phase == g.phase &&
        w.groups.back().transfers == g.transfers) {
      ++w.groups.back().repeats;
    } else {
      w.groups.push_back(std::move(g));
    }
  }
  return w;
}

Workload ringAllReduceWorkload(const std::vector<schedule::RingOrder>& rings, std::uint64_t count,
                               DataType type) {
  if (rings.empty()) throwInvalid("a ring workload needs at least one ring");
  const int p = rings.front().size();
  const std::uint64_t chunks = schedule::ringChunks(p, static_cast<int>(rings.size()));
  const double chunk =
      static_cast<double>(schedule::ringLargestChunkElements(count, chunks) * dataTypeSize(type));
  Workload w;
  w.algorithm = rings.size() == 1 ? schedule::kRing : schedule::kMultiRing;
  w.ranks = p;
  if (p < 2) return w;
  StepGroup reduceScatter{"reduce-scatter", {}, schedule::ringPhaseSteps(p)};
  for (const schedule::RingOrder& ring : rings) {
    for (int r = 0; r < p; ++r) reduceScatter.transfers.push_back({r, ring.next(r), chunk, true});
  }
  StepGroup allGather = reduceScatter;
  allGather.phase = "allgather";
  for (SimTransfer& t : allGather.transfers) t.reduce = false;
  w.groups = {std::move(reduceScatter), std::move(allGather)};
  return w;
}

std::uint64_t scheduleBytesEstimate(std::uint64_t transfers) {
  // The Schedule's Transfer plus the workload's copy of it, both held at once.
  return transfers * (sizeof(schedule::Transfer) + sizeof(SimTransfer));
}

}  // namespace ringlab::sim
