#include "ringlab/topo/placement.hpp"

#include <algorithm>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::topo {
namespace {

void checkRanks(const Topology& topology, int ranks) {
  if (ranks < 1) throwInvalid("placement of " + std::to_string(ranks) + " ranks: must be >= 1");
  if (ranks > topology.slotCount()) {
    throwInvalid("placement of " + std::to_string(ranks) + " ranks on topology '" +
                 topology.name() + "' with " + std::to_string(topology.slotCount()) +
                 " slots: more ranks than slots");
  }
}

}  // namespace

Placement::Placement(const Topology& topology, std::string kind, std::vector<SlotRef> slots)
    : kind_(std::move(kind)), slots_(std::move(slots)) {
  for (const SlotRef& s : slots_) vertices_.push_back(topology.slotVertex(s.node, s.slot));
}

Placement Placement::block(const Topology& topology, int ranks) {
  checkRanks(topology, ranks);
  std::vector<SlotRef> slots;
  for (int n = 0; n < static_cast<int>(topology.nodes().size()); ++n) {
    for (int s = 0; s < static_cast<int>(topology.nodes()[n].slots.size()); ++s) {
      if (static_cast<int>(slots.size()) < ranks) slots.push_back({n, s});
    }
  }
  return Placement(topology, "block", std::move(slots));
}

Placement Placement::roundRobin(const Topology& topology, int ranks) {
  checkRanks(topology, ranks);
  const int nodes = static_cast<int>(topology.nodes().size());
  std::vector<int> used(nodes, 0);
  std::vector<SlotRef> slots;
  for (int n = 0; static_cast<int>(slots.size()) < ranks; n = (n + 1) % nodes) {
    if (used[n] < static_cast<int>(topology.nodes()[n].slots.size()))
      slots.push_back({n, used[n]++});
  }
  return Placement(topology, "round-robin", std::move(slots));
}

Placement Placement::onNodes(const Topology& topology,
                             const std::vector<std::string>& nodePerRank) {
  checkRanks(topology, static_cast<int>(nodePerRank.size()));
  std::vector<int> used(topology.nodes().size(), 0);
  std::vector<SlotRef> slots;
  for (std::size_t r = 0; r < nodePerRank.size(); ++r) {
    int node = -1;
    for (std::size_t n = 0; n < topology.nodes().size(); ++n) {
      if (topology.nodes()[n].name == nodePerRank[r]) node = static_cast<int>(n);
    }
    if (node < 0) {
      throwInvalid("placement: rank " + std::to_string(r) + " on node '" + nodePerRank[r] +
                   "': topology '" + topology.name() + "' has no such node");
    }
    const int capacity = static_cast<int>(topology.nodes()[node].slots.size());
    if (used[node] == capacity) {
      throwInvalid("placement: rank " + std::to_string(r) + " on node '" + nodePerRank[r] +
                   "' would be rank number " + std::to_string(capacity + 1) +
                   " there, but the node has " + std::to_string(capacity) + " slots");
    }
    slots.push_back({node, used[node]++});
  }
  return Placement(topology, "explicit", std::move(slots));
}

Placement Placement::parse(const Topology& topology, std::string_view spec, int ranks,
                           std::string_view what) {
  if (spec == "block") return block(topology, ranks);
  if (spec == "round-robin" || spec == "rr") return roundRobin(topology, ranks);
  const std::vector<std::string> nodes = splitList(spec);
  if (nodes.size() == 1 && topology.nodes().size() > 1) {
    bool isNode = false;
    for (const Node& n : topology.nodes()) isNode = isNode || n.name == nodes[0];
    if (!isNode) {
      throwInvalid(
          std::string(what) + " '" + std::string(spec) +
          "': give block, round-robin (rr), or one node name per rank separated by commas");
    }
  }
  if (static_cast<int>(nodes.size()) != ranks) {
    throwInvalid(std::string(what) + " lists " + std::to_string(nodes.size()) + " nodes for " +
                 std::to_string(ranks) + " ranks: give one per rank");
  }
  return onNodes(topology, nodes);
}

std::string Placement::describe(const Topology& topology) const {
  // At most a few ranks of a few nodes: a record's header line, not a listing.
  constexpr std::size_t kShownNodes = 8, kShownRanks = 8;
  std::vector<std::vector<int>> onNode(topology.nodes().size());
  for (int r = 0; r < ranks(); ++r) onNode[slots_[r].node].push_back(r);
  std::string text = kind_ + " (";
  std::size_t shown = 0;
  for (std::size_t n = 0; n < onNode.size(); ++n) {
    if (onNode[n].empty()) continue;
    if (shown++ == kShownNodes) {
      text += "  ...";
      break;
    }
    text += (shown > 1 ? "  " : "") + topology.nodes()[n].name + ": ";
    for (std::size_t i = 0; i < onNode[n].size() && i < kShownRanks; ++i) {
      text += i ? "," : "";
      text += std::to_string(onNode[n][i]);
    }
    if (onNode[n].size() > kShownRanks) text += ",...";
  }
  return text + ")";
}

}  // namespace ringlab::topo
