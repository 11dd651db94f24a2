#pragma once
// Runs a Workload (a schedule's transfers) on a topology and placement, in simulated time.
//
//   links       each directed link has a bandwidth and a latency (topo/topology.hpp);
//   sharing     transfers crossing a link at the same time share its bandwidth max-min fairly
//               (progressive filling, recomputed whenever a transfer starts or ends); a transfer's
//               bytes arrive its path's latency after its last byte leaves;
//   ranks       a rank starts its sends of step t as soon as its own step t-1 is done (its sends
//               delivered, its receives delivered and reduced): no global barrier between steps;
//   reduction   a received block that is reduced costs bytes x gamma on the receiving rank, one
//               reduction after another in order of arrival.
// On a topology where no two transfers share a link, each ring step costs path latency + chunk /
// bandwidth + chunk x gamma: the closed-form model's alpha + beta + gamma (tested within 1%).
//
// Cost. Identical steps repeated (StepGroup::repeats) are simulated until one step moves every
// rank taking part by the same amount of time; from then on the system is a pure time shift of
// itself and the remaining repeats are added in one go (exact). Where that does not happen (a
// ring whose edges differ, with a reduction: the delay travels around the ring one hop a step)
// and no link carries two transfers of a step, each transfer's time is fixed after the first
// step and every further step is a max-plus update costing O(transfers), with no sharing solved.
// Otherwise each step solves the sharing: O(events x active transfers x links). The critical
// path keeps one entry per transfer up to 2M entries, then one per step.
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/sim/workload.hpp"
#include "ringlab/topo/placement.hpp"
#include "ringlab/topo/topology.hpp"

namespace ringlab::sim {

struct SimParams {
  double gamma_s_per_byte = 0;  // reduction on the receiving rank
};

struct CriticalStep {
  std::uint64_t firstStep = 0;  // schedule step (0-based)
  std::uint64_t steps = 1;      // > 1: a run of identical steps skipped as a time shift
  int src = -1, dst = -1;       // the transfer that ended last on the path (-1: whole group)
  double start_s = 0, end_s = 0;
  int bottleneckLink = -1;  // the link that gave the transfer its lowest rate
};

struct SimResult {
  double time_s = 0;
  std::vector<double> linkBytes;           // per directed link, bytes carried in total
  std::vector<double> linkUtilisation;     // linkBytes / (bandwidth x time_s)
  std::vector<CriticalStep> criticalPath;  // from the start to the last rank's finish
  int lastRank = 0;
  std::uint64_t simulatedSteps = 0;  // steps actually simulated (the rest were time shifts)
};

SimResult simulate(const topo::Topology& topology, const topo::Placement& placement,
                   const Workload& workload, const SimParams& params);

}  // namespace ringlab::sim
