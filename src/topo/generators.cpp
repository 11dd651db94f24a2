#include "ringlab/topo/generators.hpp"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <string>
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

FatTreeShape fatTreeShape(const Keys& keys, int nodes, int rails) {
  FatTreeShape f;
  f.perLeaf = positive(keys, "leaf", std::min(nodes, 16));
  f.spines = positive(keys, "spines", rails);
  f.groups = (nodes + f.perLeaf - 1) / f.perLeaf;
  return f;
}

// Leaf switches per group of nodes and rail, joined by spines.
void linkFatTree(Topology& t, const Keys& keys, int rails, const LinkSpec& inter) {
  const int nodes = static_cast<int>(t.nodes().size());
  const auto [perLeaf, spines, groups] = fatTreeShape(keys, nodes, rails);
  const LinkSpec uplink{bandwidth(keys, "uplink", inter.bandwidth_Bps * perLeaf / spines),
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

// dims=AxB: A*B nodes, each linked to its +x and +y neighbours (wrapping).
void linkTorus(Topology& t, const Keys& keys, int rails, const LinkSpec& inter) {
  const int nodes = static_cast<int>(t.nodes().size());
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
  const auto at = [&](int x, int y) { return ((x % a + a) % a) * b + ((y % b + b) % b); };
  for (int x = 0; x < a; ++x) {
    for (int y = 0; y < b; ++y) {
      for (int r = 0; r < rails; ++r) {
        // A dimension of 2 has one link, of 1 none.
        if (a > 2 || (a == 2 && x == 0))
          t.addNetworkLink(nicOf(t, at(x, y), r), nicOf(t, at(x + 1, y), r), inter);
        if (b > 2 || (b == 2 && y == 0))
          t.addNetworkLink(nicOf(t, at(x, y), r), nicOf(t, at(x, y + 1), r), inter);
      }
    }
  }
}

// Refuses a shape whose topology is estimated over kMaxTopologyBytes, before building any of it:
// every slot is linked to its fabric and to every NIC of its node.
void checkTopologySize(const Keys& keys, const std::string& shape, std::string_view spec, int nodes,
                       int ranks, int rails) {
  const double n = nodes, r = ranks, k = rails;
  double switches = shape == "switch" ? 1 : 0;
  double network = (shape == "torus" ? 4 : 2) * n * k;  // directed NIC links
  if (shape == "fat-tree") {
    const FatTreeShape f = fatTreeShape(keys, nodes, rails);
    switches = f.spines + double(f.groups) * k;
    network += 2.0 * f.groups * k * f.spines;
  }
  const double vertices = n * (r + 1 + k) + switches;
  const double links = n * (2 * r + 2 * r * k) + network;
  checkTopologyEstimate(
      vertices, links,
      fmt::format("{} {}: {:.0f} slots, {:.0f} vertices and {:.0f} directed links", keys.what, spec,
                  n * r, vertices, links),
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

Topology generateTopology(std::string_view spec, std::string_view what) {
  const Keys keys = parseKeys(spec, what);
  if (!keys.count("nodes"))
    throwInvalid(keys.what + " '" + std::string(spec) + "': nodes=N is required");
  const std::string shape = keys.count("shape") ? keys.at("shape") : "switch";
  if (shape != "switch" && shape != "fat-tree" && shape != "ring" && shape != "torus") {
    throwInvalid(keys.what + " shape=" + shape + ": valid are switch, fat-tree, ring, torus");
  }
  requireKeysOnlyFor(keys, shape, {"leaf", "spines", "uplink"}, "fat-tree");
  requireKeysOnlyFor(keys, shape, {"dims"}, "torus");
  const int nodes = positive(keys, "nodes", 1);
  const int ranks = positive(keys, "ranks", 1);
  const int rails = positive(keys, "rails", 1);
  const LinkSpec intra{bandwidth(keys, "intra", 100e9), seconds(keys, "intra_latency", 1e-6)};
  const LinkSpec pcie{bandwidth(keys, "pcie", intra.bandwidth_Bps), intra.latency_s};
  const LinkSpec inter{bandwidth(keys, "inter", 12.5e9), seconds(keys, "inter_latency", 2e-6),
                       bandwidth(keys, "inter_shared", 0.0)};
  checkTopologySize(keys, shape, spec, nodes, ranks, rails);

  Topology t(keys.count("name") ? keys.at("name") : std::string(spec));
  for (int n = 0; n < nodes; ++n) {
    // Appended rather than "n" + std::to_string(n): GCC 12 warns falsely (-Wrestrict) on the latter
    // at -O3.
    std::string name = "n";
    name += std::to_string(n);
    t.addNode(name, ranks, intra);
    for (int r = 0; r < rails; ++r) t.addNic(n, name + ".nic" + std::to_string(r), pcie);
  }
  if (shape == "switch") {
    const int sw = t.addSwitch("switch");
    for (int n = 0; n < nodes; ++n)
      for (int r = 0; r < rails; ++r) t.addNetworkLink(nicOf(t, n, r), sw, inter);
  } else if (shape == "fat-tree") {
    linkFatTree(t, keys, rails, inter);
  } else if (shape == "ring") {
    for (int n = 0; n < nodes && nodes > 1; ++n) {
      if (nodes == 2 && n == 1) break;  // two nodes: one link, not the same link twice
      for (int r = 0; r < rails; ++r)
        t.addNetworkLink(nicOf(t, n, r), nicOf(t, (n + 1) % nodes, r), inter);
    }
  } else {
    linkTorus(t, keys, rails, inter);
  }
  t.finish();
  return t;
}

}  // namespace ringlab::topo
