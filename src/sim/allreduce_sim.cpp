#include "ringlab/sim/allreduce_sim.hpp"

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/memory_budget.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/bandwidth.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/schedule/ring_shape.hpp"
#include "ringlab/topo/ring_search.hpp"

namespace ringlab::sim {

schedule::AlgorithmSpec withSearchedRings(const schedule::AlgorithmSpec& spec,
                                          const topo::Topology& topology,
                                          const topo::Placement& placement, double bytes,
                                          std::string& method, const ProgressCallback& progress) {
  if (spec.name != schedule::kRing && spec.name != schedule::kMultiRing)
    throwInvalid("a ring-order search finds orders for ring or multi_ring, not " + spec.name);
  topo::RingSearchOptions options;
  options.channels = spec.name == schedule::kRing ? 1 : spec.channels;
  options.bytes = bytes;
  options.progress = progress;
  const topo::RingSearchResult found = topo::searchRings(topology, placement, options);
  schedule::AlgorithmSpec searched = spec;
  searched.ringOrder.clear();
  searched.channelOrders.clear();
  if (spec.name == schedule::kRing) {
    searched.ringOrder = found.rings.front().ranks();
  } else {
    for (const auto& r : found.rings) searched.channelOrders.push_back(r.ranks());
  }
  method = found.method;
  return searched;
}

AllReduceSim::AllReduceSim(const schedule::AlgorithmSpec& spec, int p,
                           std::uint64_t memoryLimitBytes, const std::string& limitText) {
  const std::uint64_t transfers = model::scheduleTransfers(spec, p);
  const std::uint64_t scheduleBytes = scheduleBytesEstimate(transfers);
  const std::vector<schedule::RingOrder> rings = schedule::ringOrdersOf(spec, p);
  if (!rings.empty() && scheduleBytes > kMaterialiseBytes) {
    rings_ = rings;
    return;
  }
  checkMemoryEstimate(
      scheduleBytes, memoryLimitBytes,
      fmt::format("simulating {} at p = {} needs its schedule ({} transfers) in memory", spec.name,
                  p, transfers),
      limitText, "use ring or multi_ring (simulated from their orders) or fewer ranks");
  schedule_ = std::make_shared<const schedule::Schedule>(
      model::buildSchedule(schedule::Collective::AllReduce, p, spec));
}

Workload AllReduceSim::workload(std::uint64_t count, DataType type) const {
  return fromOrders() ? ringAllReduceWorkload(rings_, count, type)
                      : workloadFromSchedule(*schedule_, count, type);
}

std::vector<SimRow> simulateSizes(const topo::Topology& topology, const topo::Placement& placement,
                                  const AllReduceSim& allReduce,
                                  const std::vector<std::uint64_t>& sizes, DataType type,
                                  const SimParams& params, SimResult& last,
                                  const std::function<void(const SimRow&)>& onRow,
                                  const ProgressCallback& progress) {
  std::vector<SimRow> rows;
  ProgressMeter meter(progress, sizes.size());
  for (std::uint64_t bytes : sizes) {
    meter.stage(formatSize(bytes));
    const std::uint64_t count = elementCount(bytes, type, "-b/-e");
    last = simulate(topology, placement, allReduce.workload(count, type), params);
    const double seconds = last.time_s;
    const int p = placement.ranks();
    const double us = seconds * 1e6;
    rows.push_back({bytes, count, seconds, model::algbwGBps(bytes, us),
                    model::allReduceBusbwGBps(bytes, us, p), last.simulatedSteps});
    if (onRow) onRow(rows.back());
    meter.advance();
  }
  return rows;
}

}  // namespace ringlab::sim
