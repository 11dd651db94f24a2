#include "ringlab/topo/file_format.hpp"

#include <algorithm>
#include <initializer_list>

#include <nlohmann/json.hpp>

#include "ringlab/core/error.hpp"
#include "ringlab/core/json_text.hpp"
#include "ringlab/core/limits.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/core/units.hpp"

namespace ringlab::topo {
namespace {

using nlohmann::json;

constexpr int kFormatVersion = 1;

// A link's figures: what any link from a modem to a chip's own fabric is, and no more.
constexpr double kMinBandwidth_Bps = 1e3, kMaxBandwidth_Bps = 1e15;
constexpr double kMaxLatency_s = 1;

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throwInvalid(source_ + ": " + where + ": " + what);
  }

  void onlyKeys(const json& object, const std::string& where,
                std::initializer_list<const char*> allowed) const {
    if (!object.is_object()) fail(where, "must be a JSON object");
    for (const auto& item : object.items()) {
      const std::string& key = item.key();
      if (std::find_if(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }) ==
          allowed.end()) {
        std::string known;
        for (const char* a : allowed) known += std::string(known.empty() ? "" : ", ") + a;
        fail(where, "unknown field '" + key + "' (known: " + known + ")");
      }
    }
  }

  const json& required(const json& object, const char* key, const std::string& where) const {
    if (!object.contains(key)) fail(where, std::string("missing field '") + key + "'");
    return object.at(key);
  }

  std::string text(const json& value, const std::string& where) const {
    if (!value.is_string()) fail(where, "must be a string, got " + jsonValueText(value));
    return value.get<std::string>();
  }

  // A quantity is a string with its unit ("100GB/s", "2us"): a bare number would be read in a unit
  // the writer may not have meant (5 as 5 B/s), so it is refused, naming the forms accepted.
  double quantity(const json& value, const std::string& where, double (*parse)(std::string_view),
                  const char* example, double min, double max, const char* range) const {
    if (!value.is_string()) {
      fail(where,
           jsonValueText(value) + ": needs its unit, as a string such as \"" + example + "\"");
    }
    double v = 0;
    try {
      v = parse(value.get_ref<const std::string&>());
    } catch (const Error& e) {
      fail(where, e.what());
    }
    if (!(v >= min && v <= max)) fail(where, jsonValueText(value) + ": must be in " + range);
    return v;
  }
  double bandwidth(const json& value, const std::string& where) const {
    return quantity(value, where, parseBandwidth, "100GB/s", kMinBandwidth_Bps, kMaxBandwidth_Bps,
                    "1KB/s..1PB/s");
  }
  double seconds(const json& value, const std::string& where) const {
    return quantity(value, where, parseSeconds, "2us", 0, kMaxLatency_s, "0..1s");
  }

  LinkSpec linkSpec(const json& object, const std::string& where) const {
    return {bandwidth(required(object, "bandwidth", where), where + " bandwidth"),
            object.contains("latency") ? seconds(object.at("latency"), where + " latency") : 0.0,
            object.contains("shared_bandwidth")
                ? bandwidth(object.at("shared_bandwidth"), where + " shared_bandwidth")
                : 0.0};
  }

  // Builder errors already name the element; add the file.
  template <typename F>
  void build(const std::string& where, F&& f) const {
    try {
      f();
    } catch (const Error& e) {
      fail(where, e.what());
    }
  }

 private:
  std::string source_;
};

std::string bandwidthText(double bps) {
  return formatNumber(bps / 1e9) + "GB/s";
}
std::string latencyText(double s) {
  return formatNumber(s * 1e6) + "us";
}

// nodes[i]: a node with its slots, intra link, NICs and slot-to-NIC map.
void readNode(const Reader& r, Topology& t, const json& n, std::size_t i) {
  std::string where = "nodes[" + std::to_string(i) + "]";
  if (!n.is_object()) r.fail(where, "must be a JSON object");
  const std::string name = r.text(r.required(n, "name", where), where + " name");
  where = "node '" + name + "'";
  r.onlyKeys(n, where, {"name", "slots", "intra", "nics", "slot_nics"});
  const json& slots = r.required(n, "slots", where);
  if (!slots.is_number_integer() || slots.get<long long>() < 1 ||
      slots.get<long long>() > kMaxRanks - t.slotCount()) {
    r.fail(where, "slots " + jsonValueText(slots) + " must be a whole number from 1 to " +
                      std::to_string(kMaxRanks - t.slotCount()) + " (a topology holds at most " +
                      std::to_string(kMaxRanks) + " slots)");
  }
  const json& intra = r.required(n, "intra", where);
  r.onlyKeys(intra, where + " intra", {"bandwidth", "latency"});
  int node = 0;
  r.build(where,
          [&] { node = t.addNode(name, slots.get<int>(), r.linkSpec(intra, where + " intra")); });
  if (n.contains("nics")) {
    const json& nics = n.at("nics");
    if (!nics.is_array()) r.fail(where + " nics", "must be an array");
    for (std::size_t k = 0; k < nics.size(); ++k) {
      const std::string nicWhere = where + " nics[" + std::to_string(k) + "]";
      r.onlyKeys(nics[k], nicWhere, {"name", "bandwidth", "latency"});
      const std::string nicName = r.text(r.required(nics[k], "name", nicWhere), nicWhere + " name");
      r.build(nicWhere,
              [&] { t.addNic(node, nicName, r.linkSpec(nics[k], "NIC '" + nicName + "'")); });
    }
  }
  if (n.contains("slot_nics")) {
    const json& map = n.at("slot_nics");
    if (!map.is_array() || map.size() != slots.get<std::size_t>()) {
      r.fail(where + " slot_nics",
             "must list one NIC index per slot (" + jsonValueText(slots) + ")");
    }
    for (std::size_t s = 0; s < map.size(); ++s) {
      // Checked before narrowing: 2^32 is not NIC 0.
      if (!map[s].is_number_integer() || map[s].get<std::int64_t>() < 0 ||
          map[s].get<std::uint64_t>() > (1u << 20))
        r.fail(where + " slot_nics[" + std::to_string(s) + "]", "must be a NIC index");
      r.build(where + " slot_nics",
              [&] { t.setSlotNic(node, static_cast<int>(s), map[s].get<int>()); });
    }
  }
}

// A link between two slots of one node (an NVLink pair) or a network link.
void addLink(Topology& t, const std::string& a, const std::string& b, const LinkSpec& spec) {
  const int va = t.findVertex(a), vb = t.findVertex(b);
  const auto slotOf = [&](int v) {
    if (v < 0 || t.vertices()[v].kind != VertexKind::Slot) return -1;
    const auto& slots = t.nodes()[t.vertices()[v].node].slots;
    return static_cast<int>(std::find(slots.begin(), slots.end(), v) - slots.begin());
  };
  if (slotOf(va) < 0 || slotOf(vb) < 0) return t.addNetworkLink(a, b, spec);
  if (t.vertices()[va].node != t.vertices()[vb].node)
    throwInvalid("link " + a + " - " + b + ": slots are joined directly only within a node");
  t.addSlotLink(t.vertices()[va].node, slotOf(va), slotOf(vb), spec);
}

}  // namespace

Topology parseTopologyJson(const std::string& text, const std::string& source) {
  const Reader r(source);
  const json doc = parseJsonText(text, source);
  r.onlyKeys(doc, "top level", {"ringlab_topology", "name", "nodes", "switches", "links"});
  const json& version = r.required(doc, "ringlab_topology", "top level");
  if (!version.is_number_integer() ||
      version.get<std::uint64_t>() != static_cast<std::uint64_t>(kFormatVersion)) {
    r.fail("ringlab_topology", "format version " + jsonValueText(version) +
                                   " is not supported (this ringlab reads " +
                                   std::to_string(kFormatVersion) + ")");
  }
  Topology t(doc.contains("name") ? r.text(doc.at("name"), "name") : source);
  const json& nodes = r.required(doc, "nodes", "top level");
  if (!nodes.is_array() || nodes.empty()) r.fail("nodes", "must be a non-empty array");
  for (std::size_t i = 0; i < nodes.size(); ++i) readNode(r, t, nodes[i], i);
  if (doc.contains("switches")) {
    const json& switches = doc.at("switches");
    if (!switches.is_array()) r.fail("switches", "must be an array of names");
    for (std::size_t i = 0; i < switches.size(); ++i) {
      const std::string where = "switches[" + std::to_string(i) + "]";
      const std::string name = r.text(switches[i], where);
      r.build(where, [&] { t.addSwitch(name); });
    }
  }
  if (doc.contains("links")) {
    const json& links = doc.at("links");
    if (!links.is_array()) r.fail("links", "must be an array");
    for (std::size_t i = 0; i < links.size(); ++i) {
      std::string where = "links[" + std::to_string(i) + "]";
      r.onlyKeys(links[i], where, {"between", "bandwidth", "latency", "shared_bandwidth"});
      const json& ends = r.required(links[i], "between", where);
      if (!ends.is_array() || ends.size() != 2)
        r.fail(where, "'between' must name exactly two elements");
      const std::string a = r.text(ends[0], where), b = r.text(ends[1], where);
      where += " (" + a + " - " + b + ")";
      r.build(where, [&] { addLink(t, a, b, r.linkSpec(links[i], "link " + a + " - " + b)); });
    }
  }
  t.finish();
  return t;
}

std::string topologyToJson(const Topology& t) {
  // Keys in the documented order, not sorted.
  using json = nlohmann::ordered_json;
  json doc = {{"ringlab_topology", kFormatVersion}, {"name", t.name()}};
  json nodes = json::array();
  for (const Node& n : t.nodes()) {
    const Link& intra = t.links()[t.linkBetween(n.slots[0], n.fabric)];
    json node = {{"name", n.name},
                 {"slots", n.slots.size()},
                 {"intra",
                  {{"bandwidth", bandwidthText(intra.bandwidth_Bps)},
                   {"latency", latencyText(intra.latency_s)}}}};
    if (!n.nics.empty()) {
      json nics = json::array();
      for (int nic : n.nics) {
        const Link& l = t.links()[t.linkBetween(n.slots[0], nic)];
        nics.push_back({{"name", t.vertices()[nic].name},
                        {"bandwidth", bandwidthText(l.bandwidth_Bps)},
                        {"latency", latencyText(l.latency_s)}});
      }
      node["nics"] = nics;
      node["slot_nics"] = n.slotNic;
    }
    nodes.push_back(node);
  }
  doc["nodes"] = nodes;
  json switches = json::array();
  for (const Vertex& v : t.vertices()) {
    if (v.kind == VertexKind::Switch) switches.push_back(v.name);
  }
  doc["switches"] = switches;
  json links = json::array();
  for (const Link& l : t.links()) {
    const VertexKind a = t.vertices()[l.from].kind, b = t.vertices()[l.to].kind;
    const bool network = (a == VertexKind::Nic || a == VertexKind::Switch) &&
                         (b == VertexKind::Nic || b == VertexKind::Switch);
    const bool slotLink = a == VertexKind::Slot && b == VertexKind::Slot;
    if (!(network || slotLink) || l.from > l.to) continue;  // one entry per physical link
    links.push_back({{"between", {t.vertices()[l.from].name, t.vertices()[l.to].name}},
                     {"bandwidth", bandwidthText(l.bandwidth_Bps)},
                     {"latency", latencyText(l.latency_s)}});
    if (l.sharedBandwidth_Bps > 0)
      links.back()["shared_bandwidth"] = bandwidthText(l.sharedBandwidth_Bps);
  }
  doc["links"] = links;
  return doc.dump(2) + "\n";
}

}  // namespace ringlab::topo
