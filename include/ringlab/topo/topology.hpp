#pragma once
// The physical machine a schedule runs on: nodes (hosts) with rank slots (GPUs, cores), the
// node's internal fabric (NVSwitch, PCIe, the kernel's loopback), NICs (one per rail), switches,
// and links. A link is full duplex: it is stored as two directed links, each with its own
// bandwidth, so that traffic one way never slows traffic the other way (the seed's full-duplex
// assumption, applied per physical link).
//
// Which rank sits in which slot is not part of the topology (see placement.hpp); routing a send
// from one slot to another is (see router.hpp).
//
// Shape of a node, fixed so that routing is a rule rather than a search:
//   slot <-> fabric <-> slot      every slot has its own link to its node's fabric ("intra")
//   slot <-> NIC                   every slot has its own link to the NIC it uses (its rail)
//   slot <-> slot                  optional direct links between two slots of a node (NVLink
//                                  pairs, a partial mesh): a send between them takes it, not
//                                  the fabric
//   NIC <-> switch | NIC           the network: any graph of NICs and switches
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ringlab::topo {

enum class VertexKind { Slot, Fabric, Nic, Switch };
const char* vertexKindName(VertexKind kind);  // "slot", "fabric", "nic", "switch"

struct Vertex {
  std::string name;  // unique: "n0.s3", "n0.fabric", "n0.nic1", "leaf2"
  VertexKind kind = VertexKind::Switch;
  int node = -1;  // owning node; -1 for switches
};

// One direction of a physical link.
struct Link {
  int from = 0;
  int to = 0;
  double bandwidth_Bps = 0;  // bytes per second, this direction
  double latency_s = 0;      // one-way, this direction
  // What two or more transfers sharing this direction get together, where measured to be less
  // than bandwidth_Bps (TCP flows in one shaped queue lose segments); 0: bandwidth_Bps. Used by
  // the simulator's sharing; the link-load and search models use bandwidth_Bps.
  double sharedBandwidth_Bps = 0;
};

// Bandwidth and latency of one physical link (both directions alike).
struct LinkSpec {
  double bandwidth_Bps = 0;
  double latency_s = 0;
  double sharedBandwidth_Bps = 0;  // see Link
};

struct Node {
  std::string name;
  int fabric = -1;           // vertex
  std::vector<int> slots;    // vertices, in slot order
  std::vector<int> nics;     // vertices, in rail order
  std::vector<int> slotNic;  // per slot: index into nics it sends through (-1: none)
};

class Topology {
 public:
  explicit Topology(std::string name = "unnamed");

  // Builders. Each throws InvalidArgument naming the element: a duplicate name, a bandwidth that
  // is not > 0 and finite, a negative latency, an unknown name.
  int addNode(const std::string& name, int slots, LinkSpec intra);
  int addNic(int node, const std::string& name, LinkSpec slotLink);
  int addSwitch(const std::string& name);
  // Which NIC (index into the node's nics) slot `slot` uses; by default slot s uses NIC
  // floor(s * nics / slots), the usual one-GPU-per-rail wiring.
  void setSlotNic(int node, int slot, int nic);
  // A full-duplex direct link between two slots of one node (by slot index), which routing takes
  // in place of the fabric between them.
  void addSlotLink(int node, int slotA, int slotB, LinkSpec spec);
  // A full-duplex network link between two NICs or switches (by vertex).
  void addNetworkLink(int a, int b, LinkSpec spec);
  void addNetworkLink(const std::string& a, const std::string& b, LinkSpec spec);

  const std::string& name() const { return name_; }
  const std::vector<Vertex>& vertices() const { return vertices_; }
  const std::vector<Link>& links() const { return links_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  int slotCount() const;
  // Outgoing directed links of a vertex.
  const std::vector<int>& outLinks(int vertex) const { return out_[vertex]; }
  // The directed link from a to b, or -1.
  int linkBetween(int a, int b) const;
  // Vertex by name, or -1.
  int findVertex(const std::string& name) const;
  // "n0.s1->n0.fabric"
  std::string linkName(int link) const;
  // The vertex of slot `slot` on node `node`.
  int slotVertex(int node, int slot) const { return nodes_[node].slots[slot]; }
  // A one-line summary: "4 nodes x 2 slots, 8 NICs, 1 switch, 40 directed links".
  std::string summary() const;

  // Ready for routing: every slot's NIC assignment resolved. Called by the file reader and the
  // generators; idempotent.
  void finish();

 private:
  int addVertex(const std::string& name, VertexKind kind, int node);
  void addDirected(int from, int to, LinkSpec spec);

  std::string name_;
  std::vector<Vertex> vertices_;
  std::vector<Link> links_;
  std::vector<Node> nodes_;
  std::vector<std::vector<int>> out_;
  std::unordered_map<std::string, int> byName_;
  std::unordered_map<std::uint64_t, int> linkIndex_;
};

// Throws InvalidArgument naming `what` unless bandwidth > 0 and finite and latency >= 0.
void checkLinkSpec(const LinkSpec& spec, const std::string& what);

}  // namespace ringlab::topo
