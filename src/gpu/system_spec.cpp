#include "ringlab/gpu/system_spec.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "gpu/gpu_kinds.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/gpu/nccl_model.hpp"

namespace ringlab::gpu {
namespace {

const char* const kKeys[] = {"gpu",  "sm",    "gpus", "nodes",       "intra",   "nvlinks",
                             "link", "pcie",  "p2p",  "pcie_switch", "sockets", "socket_link",
                             "nics", "nic",   "net",  "gdr",         "nvls",    "sharp",
                             "algo", "proto", "name"};

std::string knownKeys() {
  std::string out;
  for (const char* k : kKeys) out += std::string(out.empty() ? "" : ", ") + k;
  return out;
}

std::string presetKeys() {
  std::string out;
  for (const Preset& p : presets()) out += std::string(out.empty() ? "" : ", ") + p.key;
  return out;
}

// The spec's values by key, in the order applied: a preset's first, the user's after (they win).
class SpecReader {
 public:
  explicit SpecReader(std::string what) : what_(std::move(what)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throwInvalid(fmt::format("{}: {}", what_, what));
  }

  std::map<std::string, std::string> keys(std::string_view text, bool allowPreset,
                                          const Preset** preset) const {
    std::map<std::string, std::string> out;
    std::vector<std::string> items = splitList(text);
    if (!items.empty() && items.back().empty()) items.pop_back();
    if (items.empty()) fail("empty (give a preset such as dgx-h100, or gpu= and gpus=)");
    for (std::size_t k = 0; k < items.size(); ++k) {
      const std::string& item = items[k];
      const std::size_t eq = item.find('=');
      if (eq == std::string::npos) {
        if (!allowPreset || k != 0) {
          fail(fmt::format("'{}' is not key=value (a preset name comes first)", item));
        }
        const auto& all = presets();
        const auto it =
            std::find_if(all.begin(), all.end(), [&](const Preset& p) { return item == p.key; });
        if (it == all.end()) {
          fail(fmt::format("no preset '{}' (presets: {})", item, presetKeys()));
        }
        *preset = &*it;
        continue;
      }
      const std::string key = item.substr(0, eq);
      if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
        fail(fmt::format("unknown key '{}' (keys: {})", key, knownKeys()));
      }
      if (out.count(key)) fail(fmt::format("key '{}' given twice", key));
      out[key] = item.substr(eq + 1);
    }
    return out;
  }

  // NCCL_ALGO or NCCL_PROTO's list, checked by the model's own reader of it.
  std::string ncclSelection(const std::string& key, const std::string& value,
                            std::vector<bool> (*allowed)(std::string_view)) const {
    try {
      allowed(value);
    } catch (const Error& e) {
      fail(fmt::format("{}={}: {}", key, value, e.what()));
    }
    return value;
  }

  int integer(const std::string& key, const std::string& value, int min, int max) const {
    try {
      return static_cast<int>(parseInteger(value, key, min, max));
    } catch (const Error&) {
      fail(fmt::format("{}={}: must be a whole number from {} to {}", key, value, min, max));
    }
  }

  bool yesNo(const std::string& key, const std::string& value) const {
    if (value == "yes" || value == "on" || value == "1") return true;
    if (value == "no" || value == "off" || value == "0") return false;
    fail(fmt::format("{}={}: must be yes or no", key, value));
  }

  double bandwidth(const std::string& key, const std::string& value) const {
    try {
      return parseBandwidth(value);
    } catch (const Error& e) {
      fail(fmt::format("{}={}: {}", key, value, e.what()));
    }
  }

 private:
  std::string what_;
};

IntraFabric parseFabric(const SpecReader& r, const std::string& value) {
  if (const std::optional<IntraFabric> fabric = intraFabricFromName(value)) return *fabric;
  r.fail(fmt::format("intra={}: must be nvswitch, nvlink, pcie or xgmi", value));
}

Network parseNetwork(const SpecReader& r, const std::string& value) {
  if (const std::optional<Network> network = networkFromName(value)) return *network;
  r.fail(fmt::format("net={}: must be ib, roce, efa, slingshot or tcp", value));
}

// "gen4x16" -> {4, 16}.
std::pair<int, int> parsePcie(const SpecReader& r, const std::string& value) {
  const std::size_t x = value.find('x');
  if (value.rfind("gen", 0) != 0 || x == std::string::npos) {
    r.fail(fmt::format("pcie={}: must be gen<1-6>x<lanes>, e.g. gen4x16", value));
  }
  return {r.integer("pcie generation", value.substr(3, x - 3), 1, 6),
          r.integer("pcie lanes", value.substr(x + 1), 1, 32)};
}

// The keys applied to a system, in the order that lets later keys refine earlier ones: the GPU
// kind first (it sets sm, fabric and NVLinks), then every figure the user named.
void apply(GpuSystem& s, const std::map<std::string, std::string>& keys, const SpecReader& r) {
  const auto get = [&](const char* key) -> std::optional<std::string> {
    const auto it = keys.find(key);
    return it == keys.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  if (auto v = get("gpu")) {
    const GpuKind* kind = findGpuKind(*v);
    if (!kind)
      r.fail(fmt::format("gpu={}: unknown GPU (known: {}; or give sm=)", *v, gpuKindKeys()));
    s.gpu = kind->key;
    s.gpuName = kind->name;
    s.sm = kind->sm;
    s.intra = kind->fabric;
    s.nvlinks = kind->nvlinks;
    s.linkBandwidth_Bps = linkBandwidth(*kind);
    s.pcieGen = kind->pcieGen;
    s.nvls = kind->nvls && kind->fabric == IntraFabric::NVSwitch;
  }
  if (auto v = get("sm")) {
    s.sm = r.integer("sm", *v, 30, 200);
    if (s.gpu.empty()) s.gpuName = fmt::format("GPU sm {}", s.sm);
    // The link figure follows sm unless the GPU kind (AMD) or link= says otherwise.
    if (s.intra != IntraFabric::XGMI) {
      GpuKind probe{"", "", s.sm, IntraFabric::NVLink, 0, 4, false, 0, ""};
      s.linkBandwidth_Bps = linkBandwidth(probe);
    }
  }
  if (auto v = get("intra")) s.intra = parseFabric(r, *v);
  if (auto v = get("nvlinks")) s.nvlinks = r.integer("nvlinks", *v, 0, 64);
  if (auto v = get("link")) s.linkBandwidth_Bps = r.bandwidth("link", *v);
  if (auto v = get("pcie")) std::tie(s.pcieGen, s.pcieLanes) = parsePcie(r, *v);
  if (auto v = get("p2p")) s.p2p = r.yesNo("p2p", *v);
  if (auto v = get("pcie_switch")) s.gpusPerSwitch = r.integer("pcie_switch", *v, 1, 64);
  if (auto v = get("sockets")) s.sockets = r.integer("sockets", *v, 1, 16);
  if (auto v = get("socket_link")) s.socketLinkBandwidth_Bps = r.bandwidth("socket_link", *v);
  if (auto v = get("gpus")) s.gpusPerNode = s.ranksPerNode = r.integer("gpus", *v, 1, 1024);
  if (auto v = get("nodes")) {
    s.nodes = r.integer("nodes", *v, 1, 1 << 16);
    s.nodesStated = true;
  }
  if (auto v = get("nics")) s.nicsPerNode = r.integer("nics", *v, 0, 256);
  if (auto v = get("nic")) s.nicBandwidth_Bps = r.bandwidth("nic", *v);
  if (auto v = get("net")) s.network = parseNetwork(r, *v);
  if (auto v = get("gdr")) s.gdr = r.yesNo("gdr", *v);
  if (auto v = get("nvls")) s.nvls = r.yesNo("nvls", *v);
  if (auto v = get("sharp")) s.sharp = r.yesNo("sharp", *v);
  if (auto v = get("algo")) s.ncclAlgo = r.ncclSelection("algo", *v, ncclAlgorithmsAllowed);
  if (auto v = get("proto")) s.ncclProto = r.ncclSelection("proto", *v, ncclProtocolsAllowed);
  if (auto v = get("name")) s.title = *v;
}

// The checks every system passes, whatever it was built from.
void check(GpuSystem& s, const SpecReader& reader) {
  if (s.intra != IntraFabric::PCIe && s.nvlinks == 0) {
    reader.fail(fmt::format("intra={} with no links: give nvlinks=", intraFabricName(s.intra)));
  }
  if (s.nvls && (s.intra != IntraFabric::NVSwitch || s.sm < 90)) {
    reader.fail("nvls=yes needs an NVSwitch system of sm 90 or later (intra=nvswitch)");
  }
  if (s.nicsPerNode > 0 && s.nicBandwidth_Bps <= 0) {
    reader.fail(fmt::format("nics={} without nic=: give each NIC's speed, e.g. nic=400Gb/s",
                            s.nicsPerNode));
  }
  if (s.nodes > 1 && s.nicsPerNode == 0) {
    reader.fail(fmt::format("nodes={} without NICs: give nics= and nic=", s.nodes));
  }
  if (s.sockets > 1 && s.socketLinkBandwidth_Bps <= 0) {
    // NCCL's AMD_BW, the middle of its inter-socket figures (topo/nccl_bandwidths.hpp).
    s.socketLinkBandwidth_Bps = 16e9;
    s.assumptions.push_back(
        "the link between sockets at 16 GB/s, NCCL's figure for AMD (give socket_link=)");
  }
}

}  // namespace

GpuSystem parseSystem(std::string_view spec) {
  const SpecReader reader(fmt::format("the GPU system '{}'", spec));
  const Preset* preset = nullptr;
  const std::map<std::string, std::string> user = reader.keys(spec, true, &preset);
  GpuSystem s;
  s.spec = std::string(spec);
  s.name = "custom";
  if (preset) {
    const Preset* none = nullptr;
    apply(s, reader.keys(preset->spec, false, &none), reader);
    s.name = preset->key;
    s.title = preset->title;
    s.source = preset->source;
  } else if (!user.count("gpu") && !user.count("sm")) {
    reader.fail(fmt::format("no GPU: give a preset ({}) or gpu= (or sm=)", presetKeys()));
  }
  apply(s, user, reader);
  if (s.title.empty()) s.title = fmt::format("{} x {} (typed)", s.gpusPerNode, s.gpuName);
  if (s.source.empty()) s.source = "typed by the user";
  if (!user.count("nodes") && !preset) s.assumptions.push_back("one node (no nodes=)");
  check(s, reader);
  return s;
}

GpuSystem refineSystem(GpuSystem base, std::string_view keys, const std::string& what) {
  const SpecReader reader(what);
  if (!keys.empty()) {
    const Preset* preset = nullptr;
    apply(base, reader.keys(keys, false, &preset), reader);
    base.spec += "," + std::string(keys);
  }
  check(base, reader);
  return base;
}

}  // namespace ringlab::gpu
