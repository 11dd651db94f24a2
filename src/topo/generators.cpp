#include "ringlab/topo/generators.hpp"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/memory_budget.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/core/units.hpp"

namespace ringlab::topo {
namespace {

const char* const kKeys[] = {"shape", "nodes",  "ranks",         "rails",         "intra",
                             "inter", "pcie",   "intra_latency", "inter_latency", "inter_shared",
                             "leaf",  "spines", "uplink",        "dims",          "name"};

// The spec's key=value pairs, with the caller's name for the spec that every error starts with.
struct Keys : std::map<std::string, std::string> {
  std::string what;
};

Keys parseKeys(std::string_view spec, std::string_view what) {
  Keys keys;
  keys.what = what;
  std::vector<std::string> items = splitList(spec);
  if (!items.empty() && items.back().empty()) items.pop_back();  // a trailing comma is allowed
  for (const std::string_view item : items) {
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      throwInvalid(keys.what + " '" + std::string(spec) + "': item '" + std::string(item) +
                   "' is not key=value");
    }
    const std::string key(item.substr(0, eq));
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      std::string known;
      for (const char* k : kKeys) known += std::string(known.empty() ? "" : ", ") + k;
      throwInvalid(keys.what + ": unknown key '" + key + "' (known: " + known + ")");
    }
    if (keys.count(key)) throwInvalid(keys.what + ": key '" + key + "' given twice");
    keys[key] = std::string(item.substr(eq + 1));
  }
  return keys;
}

int positive(const Keys& keys, const std::string& key, int fallback) {
  const auto it = keys.find(key);
  if (it == keys.end()) return fallback;
  try {
    return static_cast<int>(parseInteger(it->second, key, 1, 1 << 20));
  } catch (const Error&) {
    // Named as the user wrote it in the spec: key=value.
    throwInvalid(keys.what + " " + key + "=" + it->second +
                 ": must be a whole number from 1 to 1048576");
  }
}

double bandwidth(const Keys& keys, const std::string& key, double fallback) {
  const auto it = keys.find(key);
  if (it == keys.end()) return fallback;
  try {
    return parseBandwidth(it->second);
  } catch (const Error& e) {
    throwInvalid(keys.what + " " + key + "=" + it->second + ": " + e.what());
  }
}

double seconds(const Keys& keys, const std::string& key, double fallback) {
  const auto it = keys.find(key);
  if (it == keys.end()) return fallback;
  try {
    return parseSeconds(it->second);
  } catch (const Error& e) {
    throwInvalid(keys.what + " " + key + "=" + it->second + ": " + e.what());
  }
}

void requireKeysOnlyFor(const Keys& keys, const std::string& shape,
                        std::initializer_list<const char*> names, const char* forShape) {
  if (shape == forShape) return;
  for (const char* k : names) {
    if (keys.count(k))
      throwInvalid(keys.what + " " + std::string(k) + "=...: only for shape=" + forShape);
  }
}

int nicOf(const Topology& t, int node, int rail) {
  return t.nodes()[node].nics[rail];
}

// The fat tree's shape: nodes per leaf group, spines, and groups.
struct FatTreeShape {
  int perLeaf = 1, spines = 1, groups = 1;
};

FatTreeShape fatTreeShape(const TopologySpec& spec) {
  FatTreeShape f;
  f.perLeaf = spec.leaf > 0 ? spec.leaf : std::min(spec.nodes, 16);
  f.spines = spec.spines > 0 ? spec.spines : spec.rails;
  f.groups = (spec.nodes + f.perLeaf - 1) / f.perLeaf;
  return f;
}

// Leaf switches per group of nodes and rail, joined by spines.
void linkFatTree(Topology& t, const TopologySpec& spec) {
  const int nodes = spec.nodes, rails = spec.rails;
  const LinkSpec& inter = spec.inter;
  const auto [perLeaf, spines, groups] = fatTreeShape(spec);
  const LinkSpec uplink{
      spec.uplink_Bps > 0 ? spec.uplink_Bps : inter.bandwidth_Bps * perLeaf / spines,
      inter.latency_s};
  std::vector<int> spine;
  for (int s = 0; s < spines; ++s) spine.push_back(t.addSwitch("spine" + std::to_string(s)));
  for (int g = 0; g < groups; ++g) {
    for (int r = 0; r < rails; ++r) {
      const int leaf = t.addSwitch("leaf" + std::to_string(g) + ".r" + std::to_string(r));
      for (int n = g * perLeaf; n < std::min(nodes, (g + 1) * perLeaf); ++n)
        t.addNetworkLink(nicOf(t, n, r), leaf, inter);
      // Spines join the groups and the rails (a send from rail 0 to rail 1 of another node
      // crosses one); one group with one rail needs none.
      if (groups > 1 || rails > 1) {
        for (int s : spine) t.addNetworkLink(leaf, s, uplink);
      }
    }
  }
}

// dims=AxB, with A*B = nodes; throws InvalidArgument naming them otherwise.
std::pair<int, int> torusDims(const Keys& keys, int nodes) {
  const auto dimsIt = keys.find("dims");
  int a = 0, b = 0;
  try {
    const std::vector<std::string> dims =
        dimsIt == keys.end() ? std::vector<std::string>{} : splitList(dimsIt->second, 'x');
    if (dims.size() == 2) {
      a = static_cast<int>(parseInteger(dims[0], "dims", 1, nodes));
      b = static_cast<int>(parseInteger(dims[1], "dims", 1, nodes));
    }
  } catch (const Error&) {
  }
  if (a < 1 || b < 1 || static_cast<long long>(a) * b != nodes) {
    throwInvalid(keys.what + " shape=torus needs dims=AxB with A*B = nodes (" +
                 std::to_string(nodes) + ")" +
                 (dimsIt == keys.end() ? std::string() : ", got dims=" + dimsIt->second));
  }
  return {a, b};
}

// Each node linked to its +x and +y neighbours on the dimsA x dimsB torus (wrapping).
void linkTorus(Topology& t, const TopologySpec& spec) {
  const int a = spec.dimsA, b = spec.dimsB;
  const auto at = [&](int x, int y) { return ((x % a + a) % a) * b + ((y % b + b) % b); };
  for (int x = 0; x < a; ++x) {
    for (int y = 0; y < b; ++y) {
      for (int r = 0; r < spec.rails; ++r) {
        // A dimension of 2 has one link, of 1 none.
        if (a > 2 || (a == 2 && x == 0))
          t.addNetworkLink(nicOf(t, at(x, y), r), nicOf(t, at(x + 1, y), r), spec.inter);
        if (b > 2 || (b == 2 && y == 0))
          t.addNetworkLink(nicOf(t, at(x, y), r), nicOf(t, at(x, y + 1), r), spec.inter);
      }
    }
  }
}

// Refuses a shape whose topology is estimated over kMaxTopologyBytes, before building any of it:
// every slot is linked to its fabric and to every NIC of its node.
void checkTopologySize(const TopologySpec& spec) {
  const double n = spec.nodes, r = spec.ranks, k = spec.rails;
  double switches = spec.shape == TopologyShape::Switch ? 1 : 0;
  double network = (spec.shape == TopologyShape::Torus ? 4 : 2) * n * k;  // directed NIC links
  if (spec.shape == TopologyShape::FatTree) {
    const FatTreeShape f = fatTreeShape(spec);
    switches = f.spines + double(f.groups) * k;
    network += 2.0 * f.groups * k * f.spines;
  }
  const double vertices = n * (r + 1 + k) + switches;
  const double links = n * (2 * r + 2 * r * k) + network;
  checkTopologyEstimate(
      vertices, links,
      fmt::format("{} {}: {:.0f} slots, {:.0f} vertices and {:.0f} directed links", spec.what,
                  spec.text, n * r, vertices, links),
      "give fewer nodes, ranks or rails (docs/reliability.md lists the largest shapes)");
}

}  // namespace

void checkTopologyEstimate(double vertices, double directedLinks, std::string_view what,
                           std::string_view advice) {
  checkMemoryEstimate(topologyBytesEstimate(vertices, directedLinks), kMaxTopologyBytes, what,
                      fmt::format("the {} GiB a topology may take", kMaxTopologyBytes >> 30),
                      advice);
}

std::uint64_t topologyBytesEstimate(double vertices, double directedLinks) {
  // Per vertex: the Vertex, its name index entry and out-link list, the router's tables; per link:
  // the Link, its index entry, its slot in link-load arrays. Fitted to nodes=65536,ranks=16
  // (about 800 MB measured).
  const double bytes = vertices * 256 + directedLinks * 128;
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(bytes);
}

TopologySpec parseTopologySpec(std::string_view text, std::string_view what) {
  const Keys keys = parseKeys(text, what);
  if (!keys.count("nodes"))
    throwInvalid(keys.what + " '" + std::string(text) + "': nodes=N is required");
  TopologySpec spec;
  spec.text = text;
  spec.what = what;
  const std::string shape = keys.count("shape") ? keys.at("shape") : "switch";
  if (shape == "switch") {
    spec.shape = TopologyShape::Switch;
  } else if (shape == "fat-tree") {
    spec.shape = TopologyShape::FatTree;
  } else if (shape == "ring") {
    spec.shape = TopologyShape::Ring;
  } else if (shape == "torus") {
    spec.shape = TopologyShape::Torus;
  } else {
    throwInvalid(keys.what + " shape=" + shape + ": valid are switch, fat-tree, ring, torus");
  }
  requireKeysOnlyFor(keys, shape, {"leaf", "spines", "uplink"}, "fat-tree");
  requireKeysOnlyFor(keys, shape, {"dims"}, "torus");
  spec.nodes = positive(keys, "nodes", 1);
  spec.ranks = positive(keys, "ranks", 1);
  spec.rails = positive(keys, "rails", 1);
  spec.intra = {bandwidth(keys, "intra", 100e9), seconds(keys, "intra_latency", 1e-6)};
  spec.pcie = {bandwidth(keys, "pcie", spec.intra.bandwidth_Bps), spec.intra.latency_s};
  spec.inter = {bandwidth(keys, "inter", 12.5e9), seconds(keys, "inter_latency", 2e-6),
                bandwidth(keys, "inter_shared", 0.0)};
  spec.leaf = positive(keys, "leaf", 0);
  spec.spines = positive(keys, "spines", 0);
  spec.uplink_Bps = bandwidth(keys, "uplink", 0.0);
  if (spec.shape == TopologyShape::Torus)
    std::tie(spec.dimsA, spec.dimsB) = torusDims(keys, spec.nodes);
  spec.name = keys.count("name") ? keys.at("name") : std::string(text);
  return spec;
}

Topology generateTopology(const TopologySpec& spec) {
  checkTopologySize(spec);
  Topology t(spec.name);
  for (int n = 0; n < spec.nodes; ++n) {
    // Appended rather than "n" + std::to_string(n): GCC 12 warns falsely (-Wrestrict) on the latter
    // at -O3.
    std::string name = "n";
    name += std::to_string(n);
    t.addNode(name, spec.ranks, spec.intra);
    for (int r = 0; r < spec.rails; ++r) t.addNic(n, name + ".nic" + std::to_string(r), spec.pcie);
  }
  const int nodes = spec.nodes;
  switch (spec.shape) {
    case TopologyShape::Switch: {
      const int sw = t.addSwitch("switch");
      for (int n = 0; n < nodes; ++n)
        for (int r = 0; r < spec.rails; ++r) t.addNetworkLink(nicOf(t, n, r), sw, spec.inter);
      break;
    }
    case TopologyShape::FatTree:
      linkFatTree(t, spec);
      break;
    case TopologyShape::Ring:
      for (int n = 0; n < nodes && nodes > 1; ++n) {
        if (nodes == 2 && n == 1) break;  // two nodes: one link, not the same link twice
        for (int r = 0; r < spec.rails; ++r)
          t.addNetworkLink(nicOf(t, n, r), nicOf(t, (n + 1) % nodes, r), spec.inter);
      }
      break;
    case TopologyShape::Torus:
      linkTorus(t, spec);
      break;
  }
  t.finish();
  return t;
}

Topology generateTopology(std::string_view text, std::string_view what) {
  return generateTopology(parseTopologySpec(text, what));
}

}  // namespace ringlab::topo
