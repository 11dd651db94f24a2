#include "ringlab/topo/topology.hpp"

#include <cmath>

#include "ringlab/core/enum_names.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::topo {
namespace {

std::uint64_t pairKey(int a, int b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
         static_cast<std::uint32_t>(b);
}

}  // namespace

namespace {

constexpr EnumName<VertexKind> kVertexKindNames[] = {{VertexKind::Slot, "slot"},
                                                     {VertexKind::Fabric, "fabric"},
                                                     {VertexKind::Nic, "nic"},
                                                     {VertexKind::Switch, "switch"}};

}  // namespace

const char* vertexKindName(VertexKind kind) {
  return enumName(std::span(kVertexKindNames), kind).data();
}

void checkLinkSpec(const LinkSpec& spec, const std::string& what) {
  if (!(spec.bandwidth_Bps > 0) || !std::isfinite(spec.bandwidth_Bps)) {
    throwInvalid(what + ": bandwidth " + formatNumber(spec.bandwidth_Bps) +
                 " B/s must be > 0 and finite");
  }
  if (!(spec.sharedBandwidth_Bps >= 0) || !std::isfinite(spec.sharedBandwidth_Bps)) {
    throwInvalid(what + ": shared bandwidth " + formatNumber(spec.sharedBandwidth_Bps) +
                 " B/s must be > 0 and finite");
  }
  if (!(spec.latency_s >= 0) || !std::isfinite(spec.latency_s)) {
    throwInvalid(what + ": latency " + formatNumber(spec.latency_s) + " s must be >= 0 and finite");
  }
}

Topology::Topology(std::string name) : name_(std::move(name)) {}

int Topology::addVertex(const std::string& name, VertexKind kind, int node) {
  if (name.empty()) throwInvalid(std::string("a ") + vertexKindName(kind) + " has an empty name");
  if (byName_.count(name)) {
    throwInvalid("topology element name '" + name + "' is used twice: names must be unique");
  }
  const int id = static_cast<int>(vertices_.size());
  vertices_.push_back({name, kind, node});
  out_.emplace_back();
  byName_[name] = id;
  return id;
}

void Topology::addDirected(int from, int to, LinkSpec spec) {
  const int id = static_cast<int>(links_.size());
  links_.push_back({from, to, spec.bandwidth_Bps, spec.latency_s, spec.sharedBandwidth_Bps});
  out_[from].push_back(id);
  linkIndex_[pairKey(from, to)] = id;
}

int Topology::addNode(const std::string& name, int slots, LinkSpec intra) {
  if (slots < 1)
    throwInvalid("node '" + name + "': " + std::to_string(slots) + " slots, must be >= 1");
  if (byName_.count(name))
    throwInvalid("topology element name '" + name + "' is used twice: names must be unique");
  checkLinkSpec(intra, "node '" + name + "' intra");
  const int node = static_cast<int>(nodes_.size());
  Node n;
  n.name = name;
  n.fabric = addVertex(name + ".fabric", VertexKind::Fabric, node);
  // The node's own name also resolves (to its fabric), so that files can say "n0".
  byName_[name] = n.fabric;
  for (int s = 0; s < slots; ++s) {
    const int v = addVertex(name + ".s" + std::to_string(s), VertexKind::Slot, node);
    n.slots.push_back(v);
    addDirected(v, n.fabric, intra);
    addDirected(n.fabric, v, intra);
  }
  n.slotNic.assign(slots, -1);
  nodes_.push_back(std::move(n));
  return node;
}

int Topology::addNic(int node, const std::string& name, LinkSpec slotLink) {
  if (node < 0 || node >= static_cast<int>(nodes_.size())) {
    throwInvalid("NIC '" + name + "' on node " + std::to_string(node) + ": no such node");
  }
  checkLinkSpec(slotLink, "NIC '" + name + "'");
  const int v = addVertex(name, VertexKind::Nic, node);
  nodes_[node].nics.push_back(v);
  for (int slot : nodes_[node].slots) {
    addDirected(slot, v, slotLink);
    addDirected(v, slot, slotLink);
  }
  return v;
}

int Topology::addSwitch(const std::string& name) {
  return addVertex(name, VertexKind::Switch, -1);
}

void Topology::setSlotNic(int node, int slot, int nic) {
  Node& n = nodes_.at(node);
  if (slot < 0 || slot >= static_cast<int>(n.slots.size()) || nic < 0 ||
      nic >= static_cast<int>(n.nics.size())) {
    throwInvalid("node '" + n.name + "': slot " + std::to_string(slot) + " -> NIC " +
                 std::to_string(nic) + ": the node has " + std::to_string(n.slots.size()) +
                 " slots and " + std::to_string(n.nics.size()) + " NICs");
  }
  n.slotNic[slot] = nic;
}

void Topology::addSlotLink(int node, int slotA, int slotB, LinkSpec spec) {
  const Node& n = nodes_.at(node);
  const int slots = static_cast<int>(n.slots.size());
  const std::string what = "node '" + n.name + "': link between slots " + std::to_string(slotA) +
                           " and " + std::to_string(slotB);
  if (slotA < 0 || slotA >= slots || slotB < 0 || slotB >= slots)
    throwInvalid(what + ": the node has " + std::to_string(slots) + " slots");
  if (slotA == slotB) throwInvalid(what + ": a link from a slot to itself");
  const int a = n.slots[slotA], b = n.slots[slotB];
  if (linkIndex_.count(pairKey(a, b))) throwInvalid(what + ": given twice");
  checkLinkSpec(spec, what);
  addDirected(a, b, spec);
  addDirected(b, a, spec);
}

void Topology::addNetworkLink(int a, int b, LinkSpec spec) {
  const auto networkVertex = [&](int v) {
    return v >= 0 && v < static_cast<int>(vertices_.size()) &&
           (vertices_[v].kind == VertexKind::Nic || vertices_[v].kind == VertexKind::Switch);
  };
  const auto nameOf = [&](int v) {
    return v >= 0 && v < static_cast<int>(vertices_.size()) ? vertices_[v].name : std::string("?");
  };
  const std::string what = "link " + nameOf(a) + " - " + nameOf(b);
  if (!networkVertex(a) || !networkVertex(b)) {
    throwInvalid(
        what +
        ": network links join NICs and switches (a node's slots reach its NICs by themselves)");
  }
  if (a == b) throwInvalid(what + ": a link from an element to itself");
  if (linkIndex_.count(pairKey(a, b))) throwInvalid(what + ": given twice");
  checkLinkSpec(spec, what);
  addDirected(a, b, spec);
  addDirected(b, a, spec);
}

void Topology::addNetworkLink(const std::string& a, const std::string& b, LinkSpec spec) {
  const int va = findVertex(a), vb = findVertex(b);
  if (va < 0) throwInvalid("link " + a + " - " + b + ": no element named '" + a + "'");
  if (vb < 0) throwInvalid("link " + a + " - " + b + ": no element named '" + b + "'");
  addNetworkLink(va, vb, spec);
}

int Topology::slotCount() const {
  int total = 0;
  for (const Node& n : nodes_) total += static_cast<int>(n.slots.size());
  return total;
}

int Topology::linkBetween(int a, int b) const {
  const auto it = linkIndex_.find(pairKey(a, b));
  return it == linkIndex_.end() ? -1 : it->second;
}

int Topology::findVertex(const std::string& name) const {
  const auto it = byName_.find(name);
  return it == byName_.end() ? -1 : it->second;
}

std::string Topology::linkName(int link) const {
  const Link& l = links_[link];
  return vertices_[l.from].name + "->" + vertices_[l.to].name;
}

std::string Topology::summary() const {
  int nics = 0, switches = 0;
  for (const Vertex& v : vertices_) {
    nics += v.kind == VertexKind::Nic;
    switches += v.kind == VertexKind::Switch;
  }
  bool uniform = true;
  for (const Node& n : nodes_) uniform = uniform && n.slots.size() == nodes_.front().slots.size();
  const std::string shape = nodes_.empty() ? "0 nodes"
                            : uniform      ? std::to_string(nodes_.size()) + " nodes x " +
                                            std::to_string(nodes_.front().slots.size()) + " slots"
                                      : std::to_string(nodes_.size()) + " nodes, " +
                                            std::to_string(slotCount()) + " slots";
  return shape + ", " + std::to_string(nics) + " NICs, " + std::to_string(switches) +
         " switches, " + std::to_string(links_.size()) + " directed links";
}

void Topology::finish() {
  for (Node& n : nodes_) {
    const int slots = static_cast<int>(n.slots.size());
    const int nics = static_cast<int>(n.nics.size());
    for (int s = 0; s < slots; ++s) {
      if (n.slotNic[s] < 0 && nics > 0)
        n.slotNic[s] = static_cast<int>(static_cast<long>(s) * nics / slots);
    }
  }
}

}  // namespace ringlab::topo
