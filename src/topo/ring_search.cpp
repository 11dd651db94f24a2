#include "ringlab/topo/ring_search.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <unordered_map>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/schedule/multi_ring.hpp"
#include "ringlab/schedule/ring_shape.hpp"
#include "ringlab/topo/router.hpp"

namespace ringlab::topo {
namespace {

using schedule::RingOrder;

// Calls f(rank, its successor) for every edge of the ring `order`: the search permutes plain
// vectors, and RingOrder does the ring arithmetic.
template <typename F>
void forEachEdge(const std::vector<int>& order, F&& f) {
  const RingOrder ring = RingOrder::fromList(order, static_cast<int>(order.size()));
  for (int rank : order) f(rank, ring.next(rank));
}

// Link counts of ring edges placed so far, with the objective's two maxima kept up to date.
class RingPricer {
 public:
  RingPricer(const Topology& topology, const Placement& placement, double chunk)
      : topology_(topology),
        placement_(placement),
        router_(topology),
        chunk_(chunk),
        count_(topology.links().size(), 0),
        invBw_(topology.links().size()) {
    for (std::size_t l = 0; l < invBw_.size(); ++l)
      invBw_[l] = 1.0 / topology.links()[l].bandwidth_Bps;
  }

  const Route& route(int a, int b) {
    const std::uint64_t key = static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint32_t>(b);
    auto it = routes_.find(key);
    if (it == routes_.end()) it = routes_.emplace(key, router_.route(placement_, a, b)).first;
    return it->second;
  }

  // Adds (+1) or removes (-1) one ring edge; returns the largest n_l / bw_l among its links after.
  double change(int a, int b, int sign) {
    double worst = 0;
    for (int l : route(a, b).links) {
      const double before = count_[l] * invBw_[l];
      count_[l] += sign;
      const double after = count_[l] * invBw_[l];
      sumSquares_ += after * after - before * before;
      worst = std::max(worst, after);
    }
    return worst;
  }

  void changeRing(const std::vector<int>& order, int sign) {
    forEachEdge(order, [&](int a, int b) { change(a, b, sign); });
  }

  double maxLoad(int* link = nullptr) const {
    double worst = 0;
    for (std::size_t l = 0; l < count_.size(); ++l) {
      if (count_[l] * invBw_[l] > worst) {
        worst = count_[l] * invBw_[l];
        if (link) *link = static_cast<int>(l);
      }
    }
    return worst;
  }

  double sumSquares() const { return sumSquares_; }
  double chunk() const { return chunk_; }
  int ranks() const { return placement_.ranks(); }

 private:
  const Topology& topology_;
  const Placement& placement_;
  Router router_;
  double chunk_;
  std::vector<int> count_;
  std::vector<double> invBw_;
  double sumSquares_ = 0;
  std::unordered_map<std::uint64_t, Route> routes_;
};

struct Score {
  double step = 0;
  double sumSquares = 0;
  bool better(const Score& o) const {
    const double eps = 1e-12 * std::max(1e-30, std::abs(o.step));
    return step < o.step - eps || (step <= o.step + eps && sumSquares < o.sumSquares * (1 - 1e-12));
  }
};

// Step cost of everything placed in the pricer plus `order` (which is added and removed again).
Score scoreWith(RingPricer& pricer, const std::vector<int>& order,
                const std::vector<std::vector<int>>& placed) {
  pricer.changeRing(order, +1);
  double latency = 0;
  const auto edgeLatency = [&](const std::vector<int>& ring) {
    forEachEdge(ring,
                [&](int a, int b) { latency = std::max(latency, pricer.route(a, b).latency_s); });
  };
  for (const auto& ring : placed) edgeLatency(ring);
  edgeLatency(order);
  const Score s{pricer.chunk() * pricer.maxLoad() + latency, pricer.sumSquares()};
  pricer.changeRing(order, -1);
  return s;
}

// Exhaustive branch and bound over orders starting at rank 0 (p <= kExactRanks).
std::vector<int> exactRing(RingPricer& pricer, std::vector<int> incumbent, double placedLatency) {
  const int p = pricer.ranks();
  double incumbentLatency = placedLatency;
  forEachEdge(incumbent, [&](int a, int b) {
    incumbentLatency = std::max(incumbentLatency, pricer.route(a, b).latency_s);
  });
  pricer.changeRing(incumbent, +1);
  double best = pricer.chunk() * pricer.maxLoad() + incumbentLatency;
  pricer.changeRing(incumbent, -1);
  std::vector<int> order{0}, bestOrder = incumbent;
  std::vector<char> used(p, 0);
  used[0] = 1;
  const double baseLoad = pricer.maxLoad();
  std::function<void(double, double)> extend = [&](double load, double latency) {
    const int last = order.back();
    if (static_cast<int>(order.size()) == p) {
      const double worst = std::max(load, pricer.change(last, 0, +1));
      const double lat = std::max(latency, pricer.route(last, 0).latency_s);
      pricer.change(last, 0, -1);
      const double cost = pricer.chunk() * worst + std::max(lat, placedLatency);
      if (cost < best * (1 - 1e-12)) best = cost, bestOrder = order;
      return;
    }
    for (int next = 1; next < p; ++next) {
      if (used[next]) continue;
      const double worst = std::max(load, pricer.change(last, next, +1));
      const double lat = std::max(latency, pricer.route(last, next).latency_s);
      if (pricer.chunk() * worst + std::max(lat, placedLatency) < best * (1 - 1e-12)) {
        used[next] = 1;
        order.push_back(next);
        extend(worst, lat);
        order.pop_back();
        used[next] = 0;
      }
      pricer.change(last, next, -1);
    }
  };
  extend(baseLoad, 0.0);
  return bestOrder;
}

// Nodes in topology order, each node's ranks by slot, every other node walked backwards.
std::vector<int> snakeOrder(const Topology& topology, const Placement& placement, int rotation,
                            int channels) {
  std::vector<std::vector<std::pair<int, int>>> onNode(topology.nodes().size());
  for (int r = 0; r < placement.ranks(); ++r)
    onNode[placement.nodeOf(r)].push_back({placement.at(r).slot, r});
  std::vector<int> order;
  int visited = 0;
  for (auto& ranks : onNode) {
    if (ranks.empty()) continue;
    std::sort(ranks.begin(), ranks.end());
    const int m = static_cast<int>(ranks.size());
    const int shift = static_cast<int>(static_cast<long>(rotation) * m / std::max(1, channels)) % m;
    std::rotate(ranks.begin(), ranks.begin() + shift, ranks.end());
    if (visited++ % 2 == 1) std::reverse(ranks.begin(), ranks.end());
    for (const auto& [slot, rank] : ranks) order.push_back(rank);
  }
  // Start at rank 0 so that orders compare as rotations do not matter.
  std::rotate(order.begin(), std::find(order.begin(), order.end(), 0), order.end());
  return order;
}

std::vector<int> greedyOrder(RingPricer& pricer) {
  const int p = pricer.ranks();
  std::vector<int> order{0};
  std::vector<char> used(p, 0);
  used[0] = 1;
  while (static_cast<int>(order.size()) < p) {
    int best = -1;
    double bestLatency = 0, bestLoad = 0;
    for (int r = 0; r < p; ++r) {
      if (used[r]) continue;
      const double latency = pricer.route(order.back(), r).latency_s;
      const double load = pricer.change(order.back(), r, +1);
      pricer.change(order.back(), r, -1);
      if (best < 0 || latency < bestLatency || (latency == bestLatency && load < bestLoad)) {
        best = r, bestLatency = latency, bestLoad = load;
      }
    }
    used[best] = 1;
    order.push_back(best);
  }
  return order;
}

// Swap local search: accept a swap of two positions when it lowers the step cost (or keeps it
// and lowers the sum of squared link loads, which steers towards spreading load).
// Swaps tried: 50 per rank, within a budget of work (each try prices every link and edge).
long swapIterations(int p, std::size_t links) {
  if (p < 4) return 0;
  const long budget = 30'000'000L / static_cast<long>(links + 2 * p + 1);
  return std::min<long>(budget, 50L * p);
}

std::vector<int> improve(RingPricer& pricer, std::vector<int> order,
                         const std::vector<std::vector<int>>& placed, std::uint64_t seed,
                         std::size_t links, ProgressMeter& meter) {
  const int p = static_cast<int>(order.size());
  const long iterations = swapIterations(p, links);
  if (iterations == 0) return order;
  std::mt19937_64 rng(seed);
  Score current = scoreWith(pricer, order, placed);
  for (long it = 0; it < iterations; ++it) {
    meter.advance();
    const int i = 1 + static_cast<int>(rng() % (p - 1));
    const int j = 1 + static_cast<int>(rng() % (p - 1));
    if (i == j) continue;
    std::swap(order[i], order[j]);
    const Score s = scoreWith(pricer, order, placed);
    if (s.better(current)) {
      current = s;
    } else {
      std::swap(order[i], order[j]);
    }
  }
  return order;
}

}  // namespace

RingCost ringCost(const Topology& topology, const Placement& placement,
                  const std::vector<RingOrder>& rings, double bytes) {
  const int p = placement.ranks();
  const double chunk =
      bytes / static_cast<double>(schedule::ringChunks(p, static_cast<int>(rings.size())));
  RingPricer pricer(topology, placement, chunk);
  RingCost c;
  for (const RingOrder& ring : rings) {
    if (ring.size() != p)
      throwInvalid("a ring of " + std::to_string(ring.size()) + " ranks for a placement of " +
                   std::to_string(p));
    pricer.changeRing(ring.ranks(), +1);
    for (int i = 0; i < p && p > 1; ++i)
      c.latency_s = std::max(c.latency_s,
                             pricer.route(ring.ranks()[i], ring.next(ring.ranks()[i])).latency_s);
  }
  if (p < 2) return c;
  c.bottleneck_s = chunk * pricer.maxLoad(&c.bottleneckLink);
  c.step_s = c.bottleneck_s + c.latency_s;
  c.time_s = static_cast<double>(schedule::ringAllReduceSteps(p)) * c.step_s;
  return c;
}

double ringLowerBound(const Topology& topology, const Placement& placement, double bytes,
                      int channels) {
  const int p = placement.ranks();
  if (p < 2) return 0;
  const double chunk = bytes / static_cast<double>(schedule::ringChunks(p, channels));
  double bound = 0;
  // A rank's k chunks leave over the links routing gives it: its link to the fabric, its direct
  // links to other slots (NVLink pairs) and its link to its own NIC (never another NIC's, which
  // the router does not use).
  std::vector<int> ranksOn(topology.nodes().size(), 0);
  std::vector<std::vector<double>> nicLinksOn(topology.nodes().size());
  for (int r = 0; r < p; ++r) {
    const int n = placement.nodeOf(r);
    const Node& node = topology.nodes()[n];
    const int slot = placement.vertex(r);
    double out = topology.links()[topology.linkBetween(slot, node.fabric)].bandwidth_Bps;
    for (int l : topology.outLinks(slot)) {
      const Link& link = topology.links()[l];
      if (topology.vertices()[link.to].kind == VertexKind::Slot) out += link.bandwidth_Bps;
    }
    const int own = node.slotNic[placement.at(r).slot];
    const int nic = own < 0 ? -1 : node.nics[own];
    if (nic >= 0) {
      nicLinksOn[n].push_back(topology.links()[topology.linkBetween(slot, nic)].bandwidth_Bps);
      out += nicLinksOn[n].back();
    }
    bound = std::max(bound, channels * chunk / out);
    ++ranksOn[n];
  }
  // k chunks over the k fastest of some links, as the best any k rings can do.
  const auto overFastest = [&](std::vector<double> links) {
    std::sort(links.rbegin(), links.rend());
    double best = 0;
    for (int i = 0; i < std::min<int>(channels, static_cast<int>(links.size())); ++i)
      best += links[i];
    return channels * chunk / best;
  };
  double minPcie = std::numeric_limits<double>::infinity(), minNet = minPcie, minIntra = minPcie;
  int nodesUsed = 0;
  for (std::size_t n = 0; n < topology.nodes().size(); ++n) {
    const Node& node = topology.nodes()[n];
    minIntra = std::min(
        minIntra, topology.links()[topology.linkBetween(node.slots[0], node.fabric)].latency_s);
    if (ranksOn[n] == 0) continue;
    ++nodesUsed;
    // A ring edge that leaves the node takes exactly one first network link out of one of its
    // NICs; k rings take at least k such edges, at best on the k fastest links.
    std::vector<double> firstHops;
    for (int nic : node.nics) {
      for (int l : topology.outLinks(nic)) {
        const Link& link = topology.links()[l];
        if (topology.vertices()[link.to].kind == VertexKind::Slot) continue;
        firstHops.push_back(link.bandwidth_Bps);
        minNet = std::min(minNet, link.latency_s);
      }
      minPcie =
          std::min(minPcie, topology.links()[topology.linkBetween(node.slots[0], nic)].latency_s);
    }
    // Leaving the node, the k ring edges cross its ranks' links to their NICs, then the NICs'
    // first network links.
    if (ranksOn[n] < p && !firstHops.empty()) {
      bound = std::max(bound, overFastest(firstHops));
      bound = std::max(bound, overFastest(nicLinksOn[n]));
    }
  }
  const double latency = nodesUsed > 1 ? 2 * minPcie + minNet : 2 * minIntra;
  return static_cast<double>(schedule::ringAllReduceSteps(p)) *
         (bound + (std::isfinite(latency) ? latency : 0.0));
}

RingSearchResult searchRings(const Topology& topology, const Placement& placement,
                             const RingSearchOptions& options) {
  const int p = placement.ranks();
  const int k = options.channels;
  if (k < 1 || k > schedule::kMaxChannels) {
    throwInvalid(options.labels.channels + " " + std::to_string(k) + ": must be 1.." +
                 std::to_string(schedule::kMaxChannels));
  }
  if (!(options.bytes > 0))
    throwInvalid("ring search for " + formatNumber(options.bytes) + " bytes: must be > 0");
  checkConnected(topology, placement);
  const bool exact = p <= kExactRanks;
  const long swaps = exact ? 0 : swapIterations(p, topology.links().size());
  // Units: rank order priced, then per ring its candidates and its swaps, then the result priced.
  ProgressMeter meter(options.progress, 2 + static_cast<std::uint64_t>(k) * (1 + swaps));
  meter.stage("rank order");
  RingSearchResult result;
  result.rankOrderCost =
      ringCost(topology, placement, schedule::multiRingOrders(p, k, {}, {}), options.bytes);
  result.lowerBound_s = ringLowerBound(topology, placement, options.bytes, k);
  meter.advance();
  result.method =
      exact ? "exhaustive branch and bound (exact for p <= " + std::to_string(kExactRanks) + ")"
            : std::string("heuristic: best of rank order, node snake") +
                  (p <= 512 ? ", greedy nearest" : "") + ", then swap local search";
  if (k > 1)
    result.method += "; rings chosen one after another, each priced with the earlier ones' loads";
  RingPricer pricer(topology, placement,
                    options.bytes / static_cast<double>(schedule::ringChunks(p, k)));
  std::vector<std::vector<int>> placed;
  const std::vector<RingOrder> derived = schedule::multiRingOrders(p, k, {}, {});
  for (int c = 0; c < k; ++c) {
    const std::string ring = "ring " + std::to_string(c + 1) + "/" + std::to_string(k);
    meter.stage(ring + ": candidates");
    std::vector<std::vector<int>> candidates{derived[c].ranks(),
                                             snakeOrder(topology, placement, c, k)};
    if (!placed.empty())
      candidates.push_back(RingOrder::fromList(placed.front(), p).reversed().ranks());
    if (!exact && p <= 512) candidates.push_back(greedyOrder(pricer));
    std::vector<int> best = candidates.front();
    Score bestScore = scoreWith(pricer, best, placed);
    for (const auto& candidate : candidates) {
      const Score s = scoreWith(pricer, candidate, placed);
      if (s.better(bestScore)) bestScore = s, best = candidate;
    }
    if (exact && p > 2) {
      double placedLatency = 0;
      for (const auto& ring : placed) {
        forEachEdge(ring, [&](int a, int b) {
          placedLatency = std::max(placedLatency, pricer.route(a, b).latency_s);
        });
      }
      best = exactRing(pricer, best, placedLatency);
    }
    meter.advance();
    if (!exact) {
      meter.stage(ring + ": swap search");
      best = improve(pricer, best, placed, options.seed + c, topology.links().size(), meter);
    }
    pricer.changeRing(best, +1);
    placed.push_back(best);
  }
  meter.stage("pricing the rings found");
  for (const auto& ring : placed) result.rings.push_back(RingOrder::fromList(ring, p));
  result.cost = ringCost(topology, placement, result.rings, options.bytes);
  meter.advance();
  // Never worse than what the user already has.
  if (result.rankOrderCost.time_s < result.cost.time_s) {
    result.rings = derived;
    result.cost = result.rankOrderCost;
  }
  return result;
}

}  // namespace ringlab::topo
