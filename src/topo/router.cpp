#include "ringlab/topo/router.hpp"

#include <algorithm>
#include <deque>

#include "ringlab/core/error.hpp"

namespace ringlab::topo {
namespace {

bool isNetwork(VertexKind kind) {
  return kind == VertexKind::Nic || kind == VertexKind::Switch;
}

[[noreturn]] void noRoute(const Topology& t, int a, int b, const std::string& why) {
  throwInvalid("no route from " + t.vertices()[a].name + " to " + t.vertices()[b].name + ": " +
               why);
}

std::string rankText(const Topology& t, const Placement& p, int rank) {
  return "rank " + std::to_string(rank) + " (" + t.vertices()[p.vertex(rank)].name + ")";
}

}  // namespace

Router::Router(const Topology& topology) : topology_(topology) {
  const std::size_t n = topology.vertices().size();
  netOut_.resize(n);
  netIn_.resize(n);
  transit_.assign(n, 0);
  const auto& links = topology.links();
  for (std::size_t l = 0; l < links.size(); ++l) {
    const Vertex& from = topology.vertices()[links[l].from];
    const Vertex& to = topology.vertices()[links[l].to];
    if (!isNetwork(from.kind) || !isNetwork(to.kind)) continue;
    netOut_[links[l].from].push_back(static_cast<int>(l));
    netIn_[links[l].to].push_back(static_cast<int>(l));
  }
  compact_.assign(n, -1);
  nicOrdinal_.assign(n, -1);
  int transits = 0, nics = 0;
  for (std::size_t v = 0; v < n; ++v) {
    const VertexKind kind = topology.vertices()[v].kind;
    transit_[v] = kind == VertexKind::Switch || (kind == VertexKind::Nic && netOut_[v].size() >= 2);
    if (transit_[v]) compact_[v] = transits++;
    if (kind == VertexKind::Nic) nicOrdinal_[v] = nics++;
  }
  // A NIC below a switch is numbered by its port on that switch, so that "destination mod k"
  // spreads the NICs of one leaf over the spines (numbering all NICs in one sequence would send
  // every rail-r NIC of a rail-optimised leaf the same way).
  std::vector<int> ports(n, 0);
  for (std::size_t v = 0; v < n; ++v) {
    if (topology.vertices()[v].kind != VertexKind::Nic || transit_[v] || netOut_[v].size() != 1)
      continue;
    nicOrdinal_[v] = ports[topology.links()[netOut_[v][0]].to]++;
  }
}

const std::vector<int>& Router::distancesFrom(int source) {
  auto it = distances_.find(source);
  if (it != distances_.end()) return it->second;
  std::vector<int> dist(static_cast<std::size_t>(std::count(transit_.begin(), transit_.end(), 1)),
                        -1);
  std::deque<int> queue{source};
  dist[compact_[source]] = 0;
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    for (int l : netOut_[u]) {
      const int w = topology_.links()[l].to;
      if (!transit_[w] || dist[compact_[w]] >= 0) continue;
      dist[compact_[w]] = dist[compact_[u]] + 1;
      queue.push_back(w);
    }
  }
  return distances_.emplace(source, std::move(dist)).first->second;
}

void Router::networkRoute(int a, int b, std::vector<int>& links) {
  const int direct = topology_.linkBetween(a, b);
  if (direct >= 0) {
    links.push_back(direct);
    return;
  }
  // Enter the transit graph: a forwarding NIC is its own entry; any other NIC has one uplink.
  const auto entry = [&](int nic, const std::vector<int>& edges, bool outgoing) {
    if (transit_[nic]) return nic;
    if (edges.size() != 1)
      noRoute(topology_, a, b, topology_.vertices()[nic].name + " has no network link");
    const Link& l = topology_.links()[edges[0]];
    return outgoing ? l.to : l.from;
  };
  const int start = entry(a, netOut_[a], true);
  const int end = entry(b, netIn_[b], false);
  if (!transit_[a]) links.push_back(netOut_[a][0]);
  if (start != end) {
    const std::vector<int>& dist = distancesFrom(start);
    if (dist[compact_[end]] < 0) noRoute(topology_, a, b, "the network has no path between them");
    // Walk back from the end, each time to a neighbour one hop nearer the start; among equals the
    // destination NIC's ordinal picks (destination mod k).
    std::vector<int> back;
    int candidates[64];
    for (int v = end; v != start;) {
      int count = 0;
      for (int l : netIn_[v]) {
        const int u = topology_.links()[l].from;
        if (transit_[u] && dist[compact_[u]] == dist[compact_[v]] - 1 && count < 64)
          candidates[count++] = l;
      }
      const int chosen = candidates[static_cast<std::size_t>(nicOrdinal_[b]) % count];
      back.push_back(chosen);
      v = topology_.links()[chosen].from;
    }
    links.insert(links.end(), back.rbegin(), back.rend());
  }
  if (!transit_[b]) links.push_back(netIn_[b][0]);
}

Route Router::route(int src, int dst) {
  Route r;
  if (src == dst) return r;
  const Vertex& s = topology_.vertices()[src];
  const Vertex& d = topology_.vertices()[dst];
  const Node& sn = topology_.nodes()[s.node];
  const Node& dn = topology_.nodes()[d.node];
  const int direct = s.node == d.node ? topology_.linkBetween(src, dst) : -1;
  if (direct >= 0) {
    r.links = {direct};  // a slot link (NVLink pair) rather than the fabric
  } else if (s.node == d.node) {
    r.links = {topology_.linkBetween(src, sn.fabric), topology_.linkBetween(sn.fabric, dst)};
  } else {
    const auto slotIndex = [](const Node& n, int v) {
      return static_cast<int>(std::find(n.slots.begin(), n.slots.end(), v) - n.slots.begin());
    };
    const int sNic = sn.slotNic[slotIndex(sn, src)];
    const int dNic = dn.slotNic[slotIndex(dn, dst)];
    if (sNic < 0) noRoute(topology_, src, dst, "node " + sn.name + " has no NIC");
    if (dNic < 0) noRoute(topology_, src, dst, "node " + dn.name + " has no NIC");
    const int a = sn.nics[sNic], b = dn.nics[dNic];
    r.links.push_back(topology_.linkBetween(src, a));
    if (a != b) networkRoute(a, b, r.links);
    r.links.push_back(topology_.linkBetween(b, dst));
  }
  for (int l : r.links) r.latency_s += topology_.links()[l].latency_s;
  return r;
}

Route Router::route(const Placement& placement, int srcRank, int dstRank) {
  try {
    return route(placement.vertex(srcRank), placement.vertex(dstRank));
  } catch (const Error& e) {
    throwInvalid("no route between " + rankText(topology_, placement, srcRank) + " and " +
                 rankText(topology_, placement, dstRank) + ": " + e.what());
  }
}

void checkConnected(const Topology& topology, const Placement& placement) {
  Router router(topology);
  for (int r = 1; r < placement.ranks(); ++r) router.route(placement, 0, r);
}

}  // namespace ringlab::topo
