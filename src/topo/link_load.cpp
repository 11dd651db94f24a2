#include "ringlab/topo/link_load.hpp"

#include <algorithm>
#include <unordered_map>

#include "ringlab/core/error.hpp"
#include "ringlab/core/partition.hpp"

namespace ringlab::topo {

LinkLoadReport countLinkLoads(const Topology& topology, const Placement& placement,
                              const schedule::Schedule& schedule, std::uint64_t count,
                              DataType type) {
  if (placement.ranks() != schedule.ranks) {
    throwInvalid("the placement has " + std::to_string(placement.ranks()) +
                 " ranks, the schedule " + std::to_string(schedule.ranks));
  }
  Router router(topology);
  std::unordered_map<std::uint64_t, Route> routes;
  const auto routeOf = [&](int a, int b) -> const Route& {
    const std::uint64_t key = static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint32_t>(b);
    auto it = routes.find(key);
    if (it == routes.end()) it = routes.emplace(key, router.route(placement, a, b)).first;
    return it->second;
  };
  const std::size_t links = topology.links().size();
  const std::uint64_t elementBytes = dataTypeSize(type);
  LinkLoadReport report;
  report.totalBytes.assign(links, 0);
  report.maxTransfers.assign(links, 0);
  std::vector<std::uint64_t> stepBytes(links, 0);
  std::vector<int> stepTransfers(links, 0);
  std::vector<int> touched;
  for (const schedule::Step& step : schedule.steps) {
    StepLoad load;
    touched.clear();
    std::vector<std::uint64_t> transferBytes;
    for (const schedule::Transfer& t : step.transfers) {
      const std::uint64_t bytes =
          schedule::spanElements(schedule, count, t.firstBlock, t.lastBlock) * elementBytes;
      transferBytes.push_back(bytes);
      for (int l : routeOf(t.src, t.dst).links) {
        if (stepTransfers[l] == 0) touched.push_back(l);
        stepBytes[l] += bytes;
        ++stepTransfers[l];
      }
    }
    for (std::size_t i = 0; i < step.transfers.size(); ++i) {
      const Route& r = routeOf(step.transfers[i].src, step.transfers[i].dst);
      double worst = 0;
      int worstLink = -1;
      for (int l : r.links) {
        const double t = stepBytes[l] / topology.links()[l].bandwidth_Bps;
        if (t > worst) worst = t, worstLink = l;
      }
      if (r.latency_s + worst >= load.time_s) {
        load.time_s = r.latency_s + worst;
        load.bottleneckLink = worstLink;
      }
    }
    std::sort(touched.begin(), touched.end());
    for (int l : touched) {
      load.links.push_back({l, stepBytes[l], stepTransfers[l]});
      report.totalBytes[l] += stepBytes[l];
      report.maxTransfers[l] = std::max(report.maxTransfers[l], stepTransfers[l]);
      stepBytes[l] = 0;
      stepTransfers[l] = 0;
    }
    report.time_s += load.time_s;
    report.steps.push_back(std::move(load));
  }
  double busiest = -1;
  for (std::size_t l = 0; l < links; ++l) {
    report.linkHopBytes += report.totalBytes[l];
    const double busy = report.totalBytes[l] / topology.links()[l].bandwidth_Bps;
    if (report.totalBytes[l] > 0 && busy > busiest)
      busiest = busy, report.mostLoadedLink = static_cast<int>(l);
  }
  return report;
}

}  // namespace ringlab::topo
