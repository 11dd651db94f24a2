#pragma once
// Link-hop accounting: a schedule's transfers routed over the topology, with bytes per directed
// link per step and in total. The link-hop volume is the sum over links of the bytes each
// carries (bytes x links crossed), the convention volume.hpp names.
//
// Time of a step when transfers share links (the bottleneck model, also the search's objective):
// every link l carries B_l bytes in the step at bandwidth bw_l, shared for the whole step; a
// transfer takes its path's latency plus the largest B_l / bw_l on its path; the step ends with
// its slowest transfer. Steps run one after another. The simulator (sim/) refines this with
// max-min fair sharing over time and without a global step barrier.
#include <cstdint>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/schedule/schedule.hpp"
#include "ringlab/topo/placement.hpp"
#include "ringlab/topo/router.hpp"
#include "ringlab/topo/topology.hpp"

namespace ringlab::topo {

struct LinkLoad {
  int link = 0;
  std::uint64_t bytes = 0;
  int transfers = 0;  // transfers of the step that cross it
};

struct StepLoad {
  std::vector<LinkLoad> links;  // the links used in the step, by link index
  double time_s = 0;
  int bottleneckLink = -1;  // the link that sets the slowest transfer's time (-1: latency only)
};

struct LinkLoadReport {
  std::vector<StepLoad> steps;
  std::vector<std::uint64_t> totalBytes;  // per directed link
  std::vector<int> maxTransfers;   // per directed link: most transfers sharing it in one step
  std::uint64_t linkHopBytes = 0;  // sum of totalBytes: the link-hop convention
  int mostLoadedLink = -1;         // largest totalBytes / bandwidth (busiest in time)
  double time_s = 0;               // sum of step times
};

LinkLoadReport countLinkLoads(const Topology& topology, const Placement& placement,
                              const schedule::Schedule& schedule, std::uint64_t count,
                              DataType type);

}  // namespace ringlab::topo
