#include "ringlab/topo/nccl_xml.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/topo/generators.hpp"
#include "topo/nccl_bandwidths.hpp"
#include "topo/xml_tree.hpp"

namespace ringlab::topo {
namespace {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

// The attributes' ranges: far above any machine NCCL runs on, and low enough that a count cannot
// become a billion links or a dev number a sort key that loses its digits. `sm` is the compute
// capability times ten (NCCL's SM 100 for Blackwell; RCCL writes its gfx number, e.g. 942); a
// `<net>` speed is in Mb/s (0: unknown, NCCL's default); link_width is PCIe's lanes (0: unknown).
constexpr int kMaxDevices = 1 << 16;
constexpr int kMaxSm = 10000;
constexpr double kMaxNetSpeed_Mbps = 1e9;
constexpr int kMaxLinksPerGpu = 64;  // NVML knows 18; the same bound as a driver link count

struct Gpu {
  const XmlElement* element = nullptr;  // <gpu>, or the GPU's <pci> in the pci form
  const XmlElement* pci = nullptr;
  std::int64_t bus = 0;
  double dev = 0;
  int sm = 0;  // 0: not in the file (or an AMD GPU, whose sm is not a compute capability)
  int nvswitchLinks = 0;
  std::vector<int> peers;  // GPUs joined by NVLink, one entry per link
};

struct Nic {
  std::string name;
  double dev = 0;
  double bandwidth_Bps = kNcclDefaultNetBandwidth;
  std::vector<const XmlElement*> places;  // where the file lists it (a <pci> or a <cpu>)
};

// NCCL's busIdToInt64: the hex digits, skipping ':' and '.', up to the first other character.
std::int64_t busId(const std::string& text) {
  std::string hex;
  for (char c : text) {
    if (c == ':' || c == '.') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c)) || hex.size() == 16) break;
    hex += c;
  }
  return hex.empty() ? 0 : static_cast<std::int64_t>(std::stoull(hex, nullptr, 16));
}

bool startsWith(const std::string* s, const char* prefix) {
  return s && s->compare(0, std::char_traits<char>::length(prefix), prefix) == 0;
}

// NCCL's and RCCL's kvDictPciClass: 0x03... (display) and, in RCCL, 0x120000 (accelerator).
bool gpuClass(const std::string* pciClass) {
  return startsWith(pciClass, "0x03") || startsWith(pciClass, "0x120000");
}

bool hasDescendant(const XmlElement* e, const std::string& name) {
  for (const auto& c : e->children)
    if (c->name == name || hasDescendant(c.get(), name)) return true;
  return false;
}

void collect(const XmlElement* e, const std::string& name, std::vector<const XmlElement*>& out) {
  if (e->name == name) out.push_back(e);
  for (const auto& c : e->children) collect(c.get(), name, out);
}

std::vector<const XmlElement*> chain(const XmlElement* e) {
  std::vector<const XmlElement*> up;
  for (; e; e = e->parent) up.push_back(e);
  std::reverse(up.begin(), up.end());
  return up;
}

// How many elements, from the document down, two chains share.
std::size_t commonDepth(const std::vector<const XmlElement*>& a,
                        const std::vector<const XmlElement*>& b) {
  std::size_t d = 0;
  while (d < std::min(a.size(), b.size()) && a[d] == b[d]) ++d;
  return d;
}

const XmlElement* cpuAbove(const XmlElement* e) {
  while (e && e->name != "cpu") e = e->parent;
  return e;
}

class Importer {
 public:
  Importer(const std::string& text, std::string source, const NcclDriverFigures& driver)
      : source_(std::move(source)), doc_(parseXml(text, source_)), driver_(driver) {}

  NcclImport run(int nodes, double networkLatency_s);

 private:
  [[noreturn]] void fail(const std::string& what) const { throwInvalid(source_ + ": " + what); }
  const std::string& attribute(const XmlElement* e, const char* key) const {
    const std::string* v = e->find(key);
    if (!v) fail("<" + e->name + "> has no '" + key + "' attribute");
    return *v;
  }
  // Every number the file holds, read in its attribute's range (docs/reliability.md lists them).
  double number(const XmlElement* e, const char* key, double min, double max) const {
    return parseNumberIn(attribute(e, key), source_ + ": <" + e->name + "> " + key, min, max);
  }
  int whole(const XmlElement* e, const char* key, int min, int max) const {
    return static_cast<int>(
        parseInteger(attribute(e, key), source_ + ": <" + e->name + "> " + key, min, max));
  }
  const XmlElement* system();
  void readGpus(const XmlElement* system);
  void readNics(const XmlElement* system);
  void readGpuLinks();
  void applyDriverFigures();
  double linkBandwidth(const Gpu& g) const;
  std::vector<NcclGpuLink> partialLinks() const;
  void noteAssumptions(NcclImportSummary& s) const;
  double pciLink(const XmlElement* pci) const;
  double pciBelow(const XmlElement* from, const XmlElement* ancestor) const;
  NcclCpu cpuOf(const XmlElement* e) const;
  double interCpu() const;
  double pathBandwidth(const Gpu& g, const XmlElement* place) const;
  bool nvlinkGroupJoinsAll() const;
  double fabric(NcclImportSummary& s) const;
  std::vector<int> nearestNics(std::vector<double>& nicLink) const;

  std::string source_;
  std::unique_ptr<XmlElement> doc_;
  NcclDriverFigures driver_;
  bool rccl_ = false;
  std::string gcn_;
  int linkElements_ = 0;  // <nvlink> and <xgmi> elements, counted or not
  std::vector<const XmlElement*> cpus_;
  std::vector<Gpu> gpus_;
  std::vector<Nic> nics_;
  int ignoredNvlinks_ = 0;
  int cpuNvlinks_ = 0;
  int unclassified_ = 0;  // <pci> without a class
  bool assumedNicSpeed_ = false;
};

const XmlElement* Importer::system() {
  if (doc_->children.size() != 1 || doc_->children[0]->name != "system")
    fail("not an NCCL topology file: the document element must be <system>");
  const XmlElement* s = doc_->children[0].get();
  const std::string& version = attribute(s, "version");
  if (version != "1" && version != "2") {
    fail("topology XML version " + version +
         " is not supported (this ringlab reads NCCL's version 1 and RCCL's version 2)");
  }
  // RCCL writes version 2 and its GPU links as <xgmi>; either marks AMD GPUs, whatever the
  // version says (a relabelled file keeps its xGMI links).
  std::vector<const XmlElement*> xgmi;
  collect(s, "xgmi", xgmi);
  rccl_ = version == "2" || !xgmi.empty();
  return s;
}

// <gpu> elements (dumps), then GPU-class <pci> without one (NCCL_TOPO_FILE), in bus order.
void Importer::readGpus(const XmlElement* system) {
  std::vector<const XmlElement*> found;
  collect(system, "gpu", found);
  for (const XmlElement* e : found) {
    Gpu g;
    g.element = e;
    g.dev = whole(e, "dev", 0, kMaxDevices);
    if (rccl_) {
      const std::string* gcn = e->find("gcn");
      if (gcn && gcn_.empty()) gcn_ = *gcn;
    } else {
      g.sm = whole(e, "sm", 0, kMaxSm);
    }
    if (!e->parent || e->parent->name != "pci")
      fail("<gpu dev=\"" + attribute(e, "dev") + "\"> is not inside a <pci>");
    g.pci = e->parent;
    g.bus = busId(attribute(g.pci, "busid"));
    gpus_.push_back(g);
  }
  std::stable_sort(gpus_.begin(), gpus_.end(),
                   [](const Gpu& a, const Gpu& b) { return a.dev < b.dev; });
  std::vector<const XmlElement*> pcis;
  collect(system, "pci", pcis);
  std::vector<Gpu> byPci;
  for (const XmlElement* p : pcis) {
    if (!p->find("class")) ++unclassified_;
    if (!gpuClass(p->find("class")) || hasDescendant(p, "gpu")) continue;
    Gpu g;
    g.element = g.pci = p;
    g.bus = busId(attribute(p, "busid"));
    byPci.push_back(g);
  }
  std::stable_sort(byPci.begin(), byPci.end(),
                   [](const Gpu& a, const Gpu& b) { return a.bus < b.bus; });
  gpus_.insert(gpus_.end(), byPci.begin(), byPci.end());
  if (gpus_.empty()) {
    fail("no GPU: no <gpu> element and no <pci> of a GPU class (0x03..., 0x120000)" +
         (unclassified_ > 0 ? ", and " + std::to_string(unclassified_) +
                                  " <pci> without a class (NCCL fills those in from the machine "
                                  "it runs on; ringlab cannot)"
                            : std::string()));
  }
}

// One NIC per distinct <net> dev (NCCL lists a socket NIC under every <cpu>), then one per
// NIC-class <pci> without a <net>.
void Importer::readNics(const XmlElement* system) {
  std::vector<const XmlElement*> nets;
  collect(system, "net", nets);
  std::map<double, std::size_t> byDev;
  for (const XmlElement* n : nets) {
    const double dev = whole(n, "dev", 0, kMaxDevices);
    const XmlElement* place = n->parent && n->parent->name == "nic" ? n->parent->parent : n->parent;
    auto [it, added] = byDev.emplace(dev, nics_.size());
    if (added) {
      const bool known = n->find("speed") != nullptr;
      assumedNicSpeed_ = assumedNicSpeed_ || !known;
      nics_.push_back({attribute(n, "name"),
                       dev,
                       known ? ncclNetBandwidth(number(n, "speed", 0, kMaxNetSpeed_Mbps))
                             : kNcclDefaultNetBandwidth,
                       {}});
    }
    nics_[it->second].places.push_back(place);
  }
  std::sort(nics_.begin(), nics_.end(), [](const Nic& a, const Nic& b) { return a.dev < b.dev; });
  std::vector<const XmlElement*> pcis;
  collect(system, "pci", pcis);
  for (const XmlElement* p : pcis) {
    if (!startsWith(p->find("class"), "0x02") || hasDescendant(p, "net")) continue;
    nics_.push_back({attribute(p, "busid"), 0, kNcclDefaultNetBandwidth, {p}});
    assumedNicSpeed_ = true;
  }
}

// As NCCL's ncclTopoAddNvLinks (RCCL's ncclTopoAddXGMI): a GPU-class target is that GPU, if the
// file holds it and it is not this one; a CPU-class target (0x068001) is the CPU; any other target
// is the NVSwitch.
void Importer::readGpuLinks() {
  std::map<std::int64_t, int> byBus;
  for (std::size_t i = 0; i < gpus_.size(); ++i) byBus[gpus_[i].bus] = static_cast<int>(i);
  for (std::size_t i = 0; i < gpus_.size(); ++i) {
    Gpu& g = gpus_[i];
    int listed = 0;
    for (const auto& c : g.element->children) {
      if (c->name != "nvlink" && c->name != "xgmi") continue;
      ++linkElements_;
      const int count = whole(c.get(), "count", 1, kMaxLinksPerGpu);
      if ((listed += count) > kMaxLinksPerGpu) {
        fail("GPU " + std::to_string(i) + " lists " + std::to_string(listed) +
             " NVLink/xGMI links: a GPU has at most " + std::to_string(kMaxLinksPerGpu));
      }
      const std::string& tclass = attribute(c.get(), "tclass");
      if (gpuClass(&tclass)) {
        const auto peer = byBus.find(busId(attribute(c.get(), "target")));
        if (peer == byBus.end() || peer->second == static_cast<int>(i)) {
          ignoredNvlinks_ += count;
          continue;
        }
        g.peers.insert(g.peers.end(), count, peer->second);
      } else if (startsWith(&tclass, "0x068001")) {
        cpuNvlinks_ += count;
      } else {
        g.nvswitchLinks += count;
      }
    }
  }
}

// The user's count for links the file leaves to the driver: NVLinks to NVSwitches (NCCL's NVML
// query finds them so on every NVLink system it runs on, bar bridged pairs), or RCCL's xGMI links
// to the other GPUs, which join all of them.
void Importer::applyDriverFigures() {
  if (driver_.linksPerGpu < 0) return;
  if (linkElements_ > 0) {
    fail("the file lists its GPUs' links (" + std::to_string(linkElements_) +
         " <nvlink>/<xgmi> elements): a GPU link count applies only to a file that leaves them to "
         "the driver");
  }
  for (std::size_t i = 0; i < gpus_.size() && driver_.linksPerGpu > 0 && gpus_.size() > 1; ++i) {
    if (!rccl_) {
      gpus_[i].nvswitchLinks = driver_.linksPerGpu;
      continue;
    }
    // Spread the count over the other GPUs; the star model sums them per GPU either way.
    for (int k = 0; k < driver_.linksPerGpu; ++k)
      gpus_[i].peers.push_back(static_cast<int>((i + 1 + k % (gpus_.size() - 1)) % gpus_.size()));
  }
}

double Importer::linkBandwidth(const Gpu& g) const {
  return rccl_ ? rcclXgmiBandwidth(gcn_) : ncclNvlinkBandwidth(g.sm);
}

// GPU pairs joined by links each way (NCCL adds one direction per listed link; a pair listed one
// way only would reach back over PCIe, so it counts the fewer).
std::vector<NcclGpuLink> Importer::partialLinks() const {
  std::vector<NcclGpuLink> out;
  for (std::size_t a = 0; a < gpus_.size(); ++a) {
    for (std::size_t b = a + 1; b < gpus_.size(); ++b) {
      const auto count = [&](std::size_t from, std::size_t to) {
        return static_cast<int>(
            std::count(gpus_[from].peers.begin(), gpus_[from].peers.end(), static_cast<int>(to)));
      };
      const int links = std::min(count(a, b), count(b, a));
      if (links == 0) continue;
      const double bw = links * std::min(linkBandwidth(gpus_[a]), linkBandwidth(gpus_[b]));
      out.push_back({static_cast<int>(a), static_cast<int>(b), links, bw});
    }
  }
  return out;
}

double Importer::pciLink(const XmlElement* pci) const {
  const std::string* speed = pci->find("link_speed");
  const std::string* width = pci->find("link_width");
  return ncclPciBandwidth(
      speed ? *speed : "",
      width ? static_cast<int>(parseInteger(*width, source_ + ": <pci> link_width", 0, 32)) : 0);
}

// The slowest PCIe link from `from` up to (not including) `ancestor`'s own uplink.
double Importer::pciBelow(const XmlElement* from, const XmlElement* ancestor) const {
  double bw = kUnlimited;
  for (const XmlElement* e = from; e && e != ancestor; e = e->parent)
    if (e->name == "pci") bw = std::min(bw, pciLink(e));
  return bw;
}

NcclCpu Importer::cpuOf(const XmlElement* cpu) const {
  const auto text = [&](const char* key) {
    const std::string* v = cpu->find(key);
    return v ? *v : std::string();
  };
  const auto integer = [&](const char* key) {
    const std::string v = text(key);
    return v.empty() ? 0 : static_cast<int>(std::strtol(v.c_str(), nullptr, 0));
  };
  return {text("arch"), text("vendor"), integer("familyid"), integer("modelid")};
}

double Importer::interCpu() const {
  double bw = kUnlimited;
  for (const XmlElement* c : cpus_) bw = std::min(bw, ncclInterCpuBandwidth(cpuOf(c)));
  return bw;
}

double Importer::pathBandwidth(const Gpu& g, const XmlElement* place) const {
  const auto a = chain(g.pci);
  const XmlElement* common = a[commonDepth(a, chain(place)) - 1];
  double bw = std::min(pciBelow(g.pci, common), pciBelow(place, common));
  // Above the CPUs: the path crosses the link between sockets.
  if (common->name == "system" || common->name == "#document") bw = std::min(bw, interCpu());
  return std::isfinite(bw) ? bw : 5000e9;  // LOC_BW: NCCL's link from a CPU to a NIC on it
}

bool Importer::nvlinkGroupJoinsAll() const {
  if (gpus_.size() < 2) return false;
  std::vector<int> seen(gpus_.size(), 0), stack{0};
  seen[0] = 1;
  while (!stack.empty()) {
    const int g = stack.back();
    stack.pop_back();
    for (int peer : gpus_[g].peers)
      if (!seen[peer]) seen[peer] = 1, stack.push_back(peer);
  }
  return std::count(seen.begin(), seen.end(), 1) == static_cast<long>(gpus_.size());
}

// Each slot's link to its node's fabric; fills the summary's fabric fields.
double Importer::fabric(NcclImportSummary& s) const {
  s.nvswitch =
      std::any_of(gpus_.begin(), gpus_.end(), [](const Gpu& g) { return g.nvswitchLinks > 0; });
  const bool joined = !s.nvswitch && nvlinkGroupJoinsAll();
  s.fabric = s.nvswitch ? "NVSwitch" : !joined ? "PCIe" : rccl_ ? "xGMI" : "NVLink";
  double intra = kUnlimited;
  s.nvlinksPerGpu = std::numeric_limits<int>::max();
  for (const Gpu& g : gpus_) {
    const int links = g.nvswitchLinks + static_cast<int>(g.peers.size());
    s.nvlinksPerGpu = std::min(s.nvlinksPerGpu, links);
    const int counted = s.nvswitch ? g.nvswitchLinks : static_cast<int>(g.peers.size());
    double bw = counted * linkBandwidth(g);
    if (s.fabric == "PCIe" || bw == 0) bw = pciBelow(g.pci, nullptr);
    intra = std::min(intra, bw);
  }
  if (s.fabric == "PCIe") {
    s.gpuLinks = partialLinks();
    std::vector<const XmlElement*> used;
    for (const Gpu& g : gpus_) used.push_back(cpuAbove(g.pci));
    std::sort(used.begin(), used.end());
    if (std::unique(used.begin(), used.end()) - used.begin() > 1)
      intra = std::min(intra, interCpu());
  }
  s.linkFigure_Bps = rccl_ ? rcclXgmiBandwidth(gcn_) : ncclNvlinkBandwidth(s.sm);
  if (s.nvlinksPerGpu > 0 || !s.gpuLinks.empty()) s.nvlinkBandwidth_Bps = s.linkFigure_Bps;
  return std::isfinite(intra) ? intra : 5000e9;
}

// NCCL's mirrorBits: val's bits reversed within log2(pow2) bits.
int mirrorBits(int val, int pow2) {
  int mirror = 0;
  for (int b = 1, mb = pow2 >> 1; b < pow2; b <<= 1, mb >>= 1)
    if (val & b) mirror |= mb;
  return mirror;
}

// Per GPU the NIC it sends through, and per NIC the bandwidth of the GPU-to-NIC link (the slowest
// of the GPUs sending through it; for a NIC none sends through, its nearest GPU's: the second
// port of a dual-port NIC is the same PCI device as the first, not the far side of the node). A
// GPU's local NICs are the nearest in the tree (deepest common ancestor); among them it takes the
// one NCCL's ncclTopoGetLocalNet gives channel 0: dev % (GPUs sharing them), bit-mirrored when the
// NICs are a power of two.
std::vector<int> Importer::nearestNics(std::vector<double>& nicLink) const {
  const std::size_t G = gpus_.size(), N = nics_.size();
  std::vector<std::vector<int>> local(G);
  std::vector<std::vector<double>> path(G, std::vector<double>(N, 0));
  for (std::size_t g = 0; g < G; ++g) {
    const auto ga = chain(gpus_[g].pci);
    int bestDepth = -1;
    for (std::size_t k = 0; k < N; ++k) {
      int depth = 0;
      for (const XmlElement* place : nics_[k].places) {
        depth = std::max(depth, static_cast<int>(commonDepth(ga, chain(place))));
        path[g][k] = std::max(path[g][k], pathBandwidth(gpus_[g], place));
      }
      if (depth > bestDepth) bestDepth = depth, local[g].clear();
      if (depth == bestDepth) local[g].push_back(static_cast<int>(k));
    }
  }
  std::vector<int> chosen(G, -1);
  for (std::size_t g = 0; g < G && N > 0; ++g) {
    const int nets = static_cast<int>(local[g].size());
    const auto sharing = std::count_if(local.begin(), local.end(), [&](const std::vector<int>& l) {
      return std::find(l.begin(), l.end(), local[g][0]) != l.end();
    });
    int net = static_cast<int>(g % sharing);
    if ((nets & (nets - 1)) == 0) net = mirrorBits(net, nets);
    chosen[g] = local[g][net % nets];
  }
  nicLink.assign(N, kUnlimited);
  for (std::size_t k = 0; k < N; ++k) {
    for (std::size_t g = 0; g < G; ++g)
      if (chosen[g] == static_cast<int>(k)) nicLink[k] = std::min(nicLink[k], path[g][k]);
    if (std::isfinite(nicLink[k])) continue;
    nicLink[k] = 0;
    for (std::size_t g = 0; g < G; ++g) nicLink[k] = std::max(nicLink[k], path[g][k]);
  }
  return chosen;
}

// What the file leaves out and how it was priced, one sentence each.
void Importer::noteAssumptions(NcclImportSummary& s) const {
  const std::string element = rccl_ ? "<xgmi>" : "<nvlink>";
  const std::string links = rccl_ ? "xGMI links" : "NVLinks";
  if (s.linksLeftToDriver && !s.linksGiven) {
    s.assumptions.push_back("the file lists no " + element + " (" + (rccl_ ? "RCCL" : "NCCL") +
                            " asks the driver for the GPUs' " + links +
                            " at run time): priced over PCIe as if they had none; give the " +
                            links + " per GPU if they have them");
  } else if (s.linksGiven) {
    s.assumptions.push_back(std::to_string(driver_.linksPerGpu) + " " + links +
                            " per GPU as given (the file leaves them to the driver)" +
                            (s.sm == 0 && !rccl_ && driver_.linksPerGpu > 0
                                 ? ", each at NCCL's sm 80 figure (the file names no GPU model)"
                                 : ""));
  }
  if (rccl_ && gcn_.empty() && s.nvlinkBandwidth_Bps > 0)
    s.assumptions.push_back("no gcn in the file: RCCL's Vega xGMI figure, 24 GB/s");
  if (assumedNicSpeed_)
    s.assumptions.push_back("NIC speed not in the file: NCCL's NET_BW, 12 GB/s");
  if (cpuNvlinks_ > 0)
    s.assumptions.push_back(std::to_string(cpuNvlinks_) + " NVLinks to the CPU not modelled");
}

NcclImport Importer::run(int nodes, double networkLatency_s) {
  const XmlElement* sys = system();
  collect(sys, "cpu", cpus_);
  readGpus(sys);
  readNics(sys);
  readGpuLinks();
  applyDriverFigures();
  NcclImportSummary s;
  const bool dump = gpus_.front().element->name == "gpu";
  s.format = dump ? "dump form" : "pci form";
  s.rccl = rccl_;
  s.gcn = gcn_;
  s.linkName = rccl_ ? "xGMI" : "NVLink";
  s.gpus = static_cast<int>(gpus_.size());
  s.nics = static_cast<int>(nics_.size());
  s.sockets = static_cast<int>(cpus_.size());
  s.sm = std::numeric_limits<int>::max();
  for (const Gpu& g : gpus_) s.sm = std::min(s.sm, g.sm);
  s.ignoredNvlinks = ignoredNvlinks_;
  s.linksLeftToDriver = linkElements_ == 0;
  s.linksGiven = s.linksLeftToDriver && driver_.linksPerGpu >= 0;
  s.intraBandwidth_Bps = fabric(s);
  if (!cpus_.empty()) s.cpuKind = ncclCpuKind(cpuOf(cpus_.front()));
  if (cpus_.size() > 1) s.interSocketBandwidth_Bps = interCpu();
  noteAssumptions(s);
  std::vector<double> nicLink;
  const std::vector<int> chosen = nearestNics(nicLink);
  // The NIC figures are those of the NICs the GPUs send through: an unused port or NIC neither
  // slows nor speeds a ring.
  for (std::size_t k = 0; k < nics_.size(); ++k) {
    if (std::find(chosen.begin(), chosen.end(), static_cast<int>(k)) == chosen.end()) continue;
    const bool first = s.nicsUsed++ == 0;
    s.nicLinkBandwidth_Bps = first ? nicLink[k] : std::min(s.nicLinkBandwidth_Bps, nicLink[k]);
    s.nicSpeed_Bps =
        first ? nics_[k].bandwidth_Bps : std::min(s.nicSpeed_Bps, nics_[k].bandwidth_Bps);
  }
  s.nicSpeedKnown = !nics_.empty() && !assumedNicSpeed_;

  // The copies of the node are refused by their estimate before any is built: per node its GPUs,
  // fabric and NICs; each GPU linked to the fabric and to every NIC, its GPU links, NIC uplinks.
  const double n = nodes, r = s.gpus, k = static_cast<double>(nics_.size());
  const double gpuLinks = static_cast<double>(s.gpuLinks.size());
  checkTopologyEstimate(n * (r + 1 + k) + 1, n * (2 * r + 2 * r * k + 2 * gpuLinks + 2 * k),
                        source_ + ": " + std::to_string(nodes) + " nodes of " +
                            std::to_string(s.gpus) + " GPUs and " + std::to_string(nics_.size()) +
                            " NICs",
                        "give fewer nodes (docs/reliability.md lists the largest shapes)");
  Topology t(source_ + ": " + describeNcclImport(s));
  const int sw = nics_.empty() || nodes == 1 ? -1 : t.addSwitch("switch");
  for (int n = 0; n < nodes; ++n) {
    const std::string name = "n" + std::to_string(n);
    const int node = t.addNode(name, s.gpus, {s.intraBandwidth_Bps, 1e-6, 0});
    for (const NcclGpuLink& l : s.gpuLinks)
      t.addSlotLink(node, l.a, l.b, {l.bandwidth_Bps, 1e-6, 0});
    for (std::size_t k = 0; k < nics_.size(); ++k) {
      const int nic = t.addNic(node, name + "." + nics_[k].name, {nicLink[k], 1e-6, 0});
      if (sw >= 0) t.addNetworkLink(nic, sw, {nics_[k].bandwidth_Bps, networkLatency_s, 0});
    }
    for (std::size_t g = 0; g < gpus_.size() && !nics_.empty(); ++g)
      t.setSlotNic(node, static_cast<int>(g), chosen[g]);
  }
  t.finish();
  return {std::move(t), std::move(s)};
}

}  // namespace

NcclImport importNcclTopology(const std::string& text, const std::string& source, int nodes,
                              double networkLatency_s, const NcclDriverFigures& driver) {
  if (nodes < 1)
    throwInvalid("NCCL topology import for " + std::to_string(nodes) + " nodes: must be >= 1");
  if (driver.linksPerGpu > 64) {
    throwInvalid("NCCL topology import: " + std::to_string(driver.linksPerGpu) +
                 " GPU links per GPU: must be 0 to 64");
  }
  // File text enters here: escapes in a <net> name or a comment reach no terminal.
  return Importer(printableLines(text), source, driver).run(nodes, networkLatency_s);
}

Topology parseNcclTopologyXml(const std::string& text, const std::string& source, int nodes,
                              double networkLatency_s, const NcclDriverFigures& driver) {
  return importNcclTopology(text, source, nodes, networkLatency_s, driver).topology;
}

std::string describeNcclImport(const NcclImportSummary& s) {
  const auto gb = [](double bw) { return formatNumber(bw / 1e9) + " GB/s"; };
  const auto count = [](int n, const std::string& what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  std::string line = (s.rccl ? "RCCL" : "NCCL") + std::string(" topology (") + s.format +
                     "): " + count(s.gpus, "GPU");
  if (s.sm > 0) line += " sm " + std::to_string(s.sm);
  if (!s.gcn.empty()) line += " gcn " + s.gcn;
  line += ", " + count(s.nics, "NIC");
  if (s.nicsUsed < s.nics) line += " (" + std::to_string(s.nicsUsed) + " used by the GPUs)";
  line += ", " + count(s.sockets, "socket");
  if (s.sockets > 1) line += " (" + s.cpuKind + ", " + gb(s.interSocketBandwidth_Bps) + " between)";
  line += "; " + s.fabric + " fabric ";
  const std::string link = s.rccl ? "xGMI link" : "NVLink";
  if (s.fabric != "PCIe")
    line += count(s.nvlinksPerGpu, link) + " x " + gb(s.nvlinkBandwidth_Bps) + " = ";
  line += gb(s.intraBandwidth_Bps) + " per GPU";
  if (s.nics > 0) line += ", GPU-NIC " + gb(s.nicLinkBandwidth_Bps);
  for (std::size_t i = 0; i < s.gpuLinks.size(); ++i) {
    const NcclGpuLink& l = s.gpuLinks[i];
    line += (i == 0 ? "; " + s.linkName + " joins only some GPUs: " : ", ") + std::to_string(l.a) +
            "-" + std::to_string(l.b) + " " + count(l.links, s.linkName) + " = " +
            gb(l.bandwidth_Bps);
  }
  if (s.ignoredNvlinks > 0)
    line += "; " + count(s.ignoredNvlinks, link) +
            " to the GPU's own bus id or to no GPU of the file ignored";
  for (const std::string& a : s.assumptions) line += "; " + a;
  return line;
}

}  // namespace ringlab::topo
