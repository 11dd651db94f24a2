#include "ringlab/sim/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "ringlab/core/error.hpp"
#include "ringlab/topo/router.hpp"

namespace ringlab::sim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Critical-path entries kept per transfer; beyond this, one per step (see simulate).
constexpr std::size_t kMaxEvents = std::size_t{1} << 21;

// One entry of the dependency chain that the critical path is read back from.
struct Event {
  CriticalStep step;
  int pred = -1;
};

// Max-min fair sharing of the links by a set of flows, as a piecewise-constant-rate simulation
// of one step's transfers (each with its own start time).
class FlowSolver {
 public:
  FlowSolver(const topo::Topology& topology)
      : topology_(topology), slotOf_(topology.links().size(), -1) {}

  // routes[i]: the links of flow i; bytes[i], start[i]. Fills finish[i] (last byte sent) and
  // bottleneck[i] (the link that set its lowest rate).
  void run(const std::vector<const topo::Route*>& routes, const std::vector<double>& bytes,
           const std::vector<double>& start, std::vector<double>& finish,
           std::vector<int>& bottleneck) {
    const std::size_t n = routes.size();
    finish.assign(n, 0);
    bottleneck.assign(n, -1);
    remaining_ = bytes;
    rate_.assign(n, 0);
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return start[a] < start[b]; });
    active_.clear();
    std::size_t next = 0;
    double now = n ? start[order[0]] : 0;
    bool dirty = true;
    while (true) {
      while (next < n && start[order[next]] <= now + 1e-15 * std::abs(now)) {
        const std::size_t f = order[next++];
        if (remaining_[f] <= 0 || routes[f]->links.empty()) {
          finish[f] = start[f];
        } else {
          active_.push_back(f);
          dirty = true;
        }
      }
      if (active_.empty()) {
        if (next == n) break;
        now = start[order[next]];
        continue;
      }
      if (dirty) share(routes, bottleneck);
      dirty = false;
      double dt = kInf;
      for (std::size_t f : active_) dt = std::min(dt, remaining_[f] / rate_[f]);
      if (next < n) dt = std::min(dt, start[order[next]] - now);
      now += dt;
      std::size_t kept = 0;
      for (std::size_t f : active_) {
        remaining_[f] -= rate_[f] * dt;
        if (remaining_[f] <= 1e-9 * bytes[f]) {
          finish[f] = now;
          dirty = true;
        } else {
          active_[kept++] = f;
        }
      }
      active_.resize(kept);
    }
  }

 private:
  // Progressive filling: the link with the smallest fair share fixes the rate of every flow on
  // it; remove them and repeat.
  void share(const std::vector<const topo::Route*>& routes, std::vector<int>& bottleneck) {
    touched_.clear();
    for (std::size_t f : active_) {
      for (int l : routes[f]->links) {
        if (slotOf_[l] < 0) {
          slotOf_[l] = static_cast<int>(touched_.size());
          touched_.push_back(l);
          capacity_.resize(touched_.size());
          count_.resize(touched_.size());
          capacity_.back() = topology_.links()[l].bandwidth_Bps;
          count_.back() = 0;
        }
        ++count_[slotOf_[l]];
      }
    }
    // A link measured to deliver less when shared offers that to two or more flows.
    for (std::size_t s = 0; s < touched_.size(); ++s) {
      const topo::Link& link = topology_.links()[touched_[s]];
      if (count_[s] >= 2 && link.sharedBandwidth_Bps > 0) capacity_[s] = link.sharedBandwidth_Bps;
    }
    // Flows per link, as one flat array.
    offset_.assign(touched_.size() + 1, 0);
    for (std::size_t f : active_)
      for (int l : routes[f]->links) ++offset_[slotOf_[l] + 1];
    std::partial_sum(offset_.begin(), offset_.end(), offset_.begin());
    flowsOn_.resize(offset_.back());
    fill_ = offset_;
    for (std::size_t f : active_)
      for (int l : routes[f]->links) flowsOn_[fill_[slotOf_[l]]++] = f;
    frozen_.assign(remaining_.size(), 0);
    std::size_t left = active_.size();
    while (left > 0) {
      double best = kInf;
      for (std::size_t s = 0; s < touched_.size(); ++s) {
        if (count_[s] > 0) best = std::min(best, capacity_[s] / count_[s]);
      }
      const double limit = best * (1 + 1e-12);
      for (std::size_t s = 0; s < touched_.size(); ++s) {
        if (count_[s] == 0 || capacity_[s] / count_[s] > limit) continue;
        for (int i = offset_[s]; i < offset_[s + 1]; ++i) {
          const std::size_t f = flowsOn_[i];
          if (frozen_[f]) continue;
          frozen_[f] = 1;
          --left;
          rate_[f] = best;
          bottleneck[f] = touched_[s];
          for (int l : routes[f]->links) {
            capacity_[slotOf_[l]] -= best;
            --count_[slotOf_[l]];
          }
        }
      }
    }
    for (int l : touched_) slotOf_[l] = -1;
  }

  const topo::Topology& topology_;
  std::vector<int> slotOf_, touched_, count_, offset_, fill_;
  std::vector<double> capacity_, remaining_, rate_;
  std::vector<std::size_t> active_, flowsOn_;
  std::vector<char> frozen_;
};

}  // namespace

SimResult simulate(const topo::Topology& topology, const topo::Placement& placement,
                   const Workload& workload, const SimParams& params) {
  if (placement.ranks() != workload.ranks) {
    throwInvalid("the placement has " + std::to_string(placement.ranks()) +
                 " ranks, the schedule " + std::to_string(workload.ranks));
  }
  if (!(params.gamma_s_per_byte >= 0) || !std::isfinite(params.gamma_s_per_byte)) {
    throwInvalid("gamma " + std::to_string(params.gamma_s_per_byte) + " s/B: must be >= 0");
  }
  const int p = workload.ranks;
  topo::Router router(topology);
  std::unordered_map<std::uint64_t, topo::Route> routeCache;
  FlowSolver solver(topology);
  SimResult result;
  result.linkBytes.assign(topology.links().size(), 0);
  std::vector<double> ready(p, 0), before(p);
  std::vector<int> why(p, -1);
  std::vector<Event> events;
  std::vector<double> start, finish, arrival, bytes;
  std::vector<int> bottleneck;
  std::vector<char> takesPart(p);
  std::uint64_t stepIndex = 0;

  for (const StepGroup& group : workload.groups) {
    const std::size_t n = group.transfers.size();
    std::vector<const topo::Route*> routes(n);
    bytes.resize(n);
    std::fill(takesPart.begin(), takesPart.end(), 0);
    for (std::size_t i = 0; i < n; ++i) {
      const SimTransfer& t = group.transfers[i];
      const std::uint64_t key =
          static_cast<std::uint64_t>(t.src) << 32 | static_cast<std::uint32_t>(t.dst);
      auto it = routeCache.find(key);
      if (it == routeCache.end())
        it = routeCache.emplace(key, router.route(placement, t.src, t.dst)).first;
      routes[i] = &it->second;
      bytes[i] = t.bytes;
      takesPart[t.src] = takesPart[t.dst] = 1;
    }
    // Transfers grouped by receiver, for the receiver's reductions in order of arrival.
    std::vector<std::size_t> byReceiver(n);
    std::iota(byReceiver.begin(), byReceiver.end(), 0);
    std::vector<int> received(p, 0), onLink(topology.links().size(), 0);
    bool oneEach = true;  // every receiver gets one transfer per step: no ordering needed
    bool alone =
        true;  // no link carries two transfers of a step: durations do not depend on timing
    for (std::size_t i = 0; i < n; ++i) {
      oneEach = oneEach && ++received[group.transfers[i].dst] == 1;
      for (int l : routes[i]->links) alone = alone && ++onLink[l] == 1;
    }
    std::vector<double> duration;  // per transfer, once known to be fixed
    for (std::uint64_t rep = 0; rep < group.repeats; ++rep) {
      before = ready;
      start.resize(n);
      for (std::size_t i = 0; i < n; ++i) start[i] = ready[group.transfers[i].src];
      if (duration.empty()) {
        solver.run(routes, bytes, start, finish, bottleneck);
        if (alone) {
          duration.resize(n);
          for (std::size_t i = 0; i < n; ++i) duration[i] = finish[i] - start[i];
        }
      } else {
        // Every transfer alone on its links: its time is fixed, and the step is a max-plus
        // update, O(transfers), without solving the sharing again.
        for (std::size_t i = 0; i < n; ++i) finish[i] = start[i] + duration[i];
      }
      arrival.resize(n);
      for (std::size_t i = 0; i < n; ++i) arrival[i] = finish[i] + routes[i]->latency_s;
      if (!oneEach) {
        std::sort(byReceiver.begin(), byReceiver.end(), [&](std::size_t a, std::size_t b) {
          const int da = group.transfers[a].dst, db = group.transfers[b].dst;
          return da != db ? da < db : arrival[a] < arrival[b];
        });
      }
      // Past the budget the chain is kept per step, not per transfer (memory stays O(p)).
      const bool detailed = events.size() < kMaxEvents;
      int stepEvent = -1;
      if (!detailed) {
        const int last =
            static_cast<int>(std::max_element(before.begin(), before.end()) - before.begin());
        events.push_back({{stepIndex, 1, -1, -1, before[last], before[last], -1}, why[last]});
        stepEvent = static_cast<int>(events.size()) - 1;
      }
      int receiver = -1;
      double cpu = 0;
      for (std::size_t i : byReceiver) {
        const SimTransfer& t = group.transfers[i];
        if (t.dst != receiver) receiver = t.dst, cpu = before[t.dst];
        const bool waitedForReceiver = cpu > arrival[i];
        cpu = std::max(cpu, arrival[i]) + (t.reduce ? t.bytes * params.gamma_s_per_byte : 0.0);
        int e = stepEvent;
        if (detailed) {
          events.push_back(
              {{stepIndex, 1, t.src, t.dst, start[i], cpu, bottleneck.empty() ? -1 : bottleneck[i]},
               waitedForReceiver ? why[t.dst] : why[t.src]});
          e = static_cast<int>(events.size()) - 1;
        } else {
          events[stepEvent].step.end_s = std::max(events[stepEvent].step.end_s, cpu);
        }
        if (cpu >= ready[t.dst]) ready[t.dst] = cpu, why[t.dst] = e;
        if (arrival[i] > ready[t.src]) ready[t.src] = arrival[i], why[t.src] = e;
      }
      for (std::size_t i = 0; i < n; ++i) {
        for (int l : routes[i]->links) result.linkBytes[l] += bytes[i];
      }
      ++stepIndex;
      ++result.simulatedSteps;
      // A step that moved every rank taking part by the same time repeats as a pure shift.
      const std::uint64_t left = group.repeats - rep - 1;
      if (left == 0) break;
      double lo = kInf, hi = -kInf;
      for (int r = 0; r < p; ++r) {
        if (!takesPart[r]) continue;
        lo = std::min(lo, ready[r] - before[r]);
        hi = std::max(hi, ready[r] - before[r]);
      }
      if (hi - lo <= 1e-9 * std::max(hi, 1e-12)) {
        const double shift = hi * static_cast<double>(left);
        const int last =
            static_cast<int>(std::max_element(ready.begin(), ready.end()) - ready.begin());
        events.push_back(
            {{stepIndex, left, -1, -1, ready[last], ready[last] + shift, -1}, why[last]});
        for (int r = 0; r < p; ++r) {
          if (!takesPart[r]) continue;
          ready[r] += shift;
          why[r] = static_cast<int>(events.size()) - 1;
        }
        for (std::size_t i = 0; i < n; ++i) {
          for (int l : routes[i]->links)
            result.linkBytes[l] += bytes[i] * static_cast<double>(left);
        }
        stepIndex += left;
        break;
      }
    }
  }
  result.lastRank = static_cast<int>(std::max_element(ready.begin(), ready.end()) - ready.begin());
  result.time_s = p ? ready[result.lastRank] : 0;
  for (int e = p ? why[result.lastRank] : -1; e >= 0; e = events[e].pred)
    result.criticalPath.push_back(events[e].step);
  std::reverse(result.criticalPath.begin(), result.criticalPath.end());
  result.linkUtilisation.resize(result.linkBytes.size());
  for (std::size_t l = 0; l < result.linkBytes.size(); ++l) {
    result.linkUtilisation[l] =
        result.time_s > 0
            ? result.linkBytes[l] / (topology.links()[l].bandwidth_Bps * result.time_s)
            : 0.0;
  }
  return result;
}

}  // namespace ringlab::sim
