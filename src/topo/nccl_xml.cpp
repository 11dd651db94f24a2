#include "ringlab/topo/nccl_xml.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <vector>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::topo {
namespace {

// Just enough XML for NCCL's dump: elements with attributes, no text content that matters.
struct Element {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::vector<std::unique_ptr<Element>> children;
  Element* parent = nullptr;
};

class XmlReader {
 public:
  XmlReader(const std::string& text, std::string source)
      : text_(text), source_(std::move(source)) {}

  std::unique_ptr<Element> parse() {
    auto root = std::make_unique<Element>();
    root->name = "#document";
    Element* current = root.get();
    while (true) {
      const std::size_t open = text_.find('<', pos_);
      if (open == std::string::npos) break;
      pos_ = open + 1;
      if (text_.compare(pos_, 3, "!--") == 0) {
        pos_ = expect("-->") + 3;
        continue;
      }
      if (peek() == '?' || peek() == '!') {
        pos_ = expect(">") + 1;
        continue;
      }
      if (peek() == '/') {
        ++pos_;
        const std::string name = readName();
        if (current == root.get() || current->name != name)
          fail("closing </" + name + "> matches no open element");
        pos_ = expect(">") + 1;
        current = current->parent;
        continue;
      }
      auto element = std::make_unique<Element>();
      element->name = readName();
      element->parent = current;
      bool selfClosing = false;
      while (true) {
        skipSpace();
        if (peek() == '/') {
          selfClosing = true;
          pos_ = expect(">") + 1;
          break;
        }
        if (peek() == '>') {
          ++pos_;
          break;
        }
        const std::string key = readName();
        skipSpace();
        if (peek() != '=') fail("attribute '" + key + "' of <" + element->name + "> has no value");
        ++pos_;
        skipSpace();
        const char quote = peek();
        if (quote != '"' && quote != '\'')
          fail("attribute '" + key + "' of <" + element->name + "> is not quoted");
        const std::size_t end = text_.find(quote, pos_ + 1);
        if (end == std::string::npos) fail("unterminated attribute '" + key + "'");
        element->attributes[key] = text_.substr(pos_ + 1, end - pos_ - 1);
        pos_ = end + 1;
      }
      Element* raw = element.get();
      current->children.push_back(std::move(element));
      if (!selfClosing) current = raw;
    }
    if (current != root.get()) fail("<" + current->name + "> is never closed");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throwInvalid(source_ + ": not NCCL topology XML: " + what + " (at byte " +
                 std::to_string(pos_) + ")");
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::size_t expect(const char* what) {
    const std::size_t at = text_.find(what, pos_);
    if (at == std::string::npos) fail(std::string("expected '") + what + "'");
    return at;
  }
  std::string readName() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
            text_[pos_] == '-' || text_[pos_] == ':' || text_[pos_] == '.')) {
      ++pos_;
    }
    if (pos_ == start) fail("expected a name");
    return text_.substr(start, pos_ - start);
  }

  const std::string& text_;
  std::string source_;
  std::size_t pos_ = 0;
};

void collect(Element* e, const std::string& name, std::vector<Element*>& out) {
  if (e->name == name) out.push_back(e);
  for (auto& c : e->children) collect(c.get(), name, out);
}

std::vector<const Element*> ancestors(const Element* e) {
  std::vector<const Element*> chain;
  for (; e; e = e->parent) chain.push_back(e);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

}  // namespace

Topology parseNcclTopologyXml(const std::string& text, const std::string& source, int nodes,
                              double networkLatency_s) {
  if (nodes < 1)
    throwInvalid("NCCL topology import for " + std::to_string(nodes) + " nodes: must be >= 1");
  const std::unique_ptr<Element> doc = XmlReader(text, source).parse();
  if (doc->children.size() != 1 || doc->children[0]->name != "system") {
    throwInvalid(source + ": not an NCCL topology dump: the document element must be <system>");
  }
  Element* system = doc->children[0].get();
  const auto attribute = [&](const Element* e, const char* key) -> const std::string& {
    const auto it = e->attributes.find(key);
    if (it == e->attributes.end()) {
      throwInvalid(source + ": <" + e->name + "> has no '" + key + "' attribute");
    }
    return it->second;
  };
  const std::string& version = attribute(system, "version");
  if (version != "1") {
    throwInvalid(source + ": NCCL topology XML version " + version +
                 " is not supported (this ringlab reads 1)");
  }
  std::vector<Element*> gpus, nets;
  collect(system, "gpu", gpus);
  collect(system, "net", nets);
  if (gpus.empty()) throwInvalid(source + ": no <gpu> element: nothing to place ranks on");
  const auto number = [&](const Element* e, const char* key) {
    return parseNumber(attribute(e, key), source + ": <" + e->name + "> " + key);
  };
  for (const Element* e : gpus)
    number(e, "dev");  // every one named, not just those the sort compares
  for (const Element* e : nets) number(e, "dev");
  std::sort(gpus.begin(), gpus.end(),
            [&](Element* a, Element* b) { return number(a, "dev") < number(b, "dev"); });
  std::sort(nets.begin(), nets.end(),
            [&](Element* a, Element* b) { return number(a, "dev") < number(b, "dev"); });

  // Each GPU's link to the fabric: its NVLinks, else its PCIe link.
  double intra = 0;
  for (const Element* g : gpus) {
    const double sm = number(g, "sm");
    const double perLink = sm < 70 ? 18e9 : sm < 90 ? 20e9 : 20.6e9;
    double bw = 0;
    for (const auto& c : g->children) {
      if (c->name == "nvlink") bw += number(c.get(), "count") * perLink;
    }
    if (bw == 0) {
      const Element* pci = g->parent;
      if (!pci || pci->name != "pci")
        throwInvalid(source + ": <gpu dev=\"" + attribute(g, "dev") +
                     "\"> has no NVLink and no parent <pci>");
      // "16.0 GT/s PCIe": the number before the unit; anything else gives no bandwidth below.
      const std::string speed = attribute(pci, "link_speed");
      double gts = 0;
      try {
        gts = parseNumber(speed.substr(0, speed.find(' ')), "link_speed");
      } catch (const Error&) {
      }
      bw = gts * number(pci, "link_width") * 1e9 * 128.0 / 130.0 / 8.0;
      if (!(bw > 0))
        throwInvalid(source + ": <pci busid=\"" + attribute(pci, "busid") +
                     "\"> link_speed gives no bandwidth");
    }
    // One figure per node: the slowest GPU's, so no slot is credited more than it has.
    intra = intra == 0 ? bw : std::min(intra, bw);
  }
  Topology t(source);
  const int sw = nets.empty() || nodes == 1 ? -1 : t.addSwitch("switch");
  for (int n = 0; n < nodes; ++n) {
    const std::string name = "n" + std::to_string(n);
    const int node = t.addNode(name, static_cast<int>(gpus.size()), {intra, 1e-6, 0});
    for (const Element* net : nets) {
      const double speed = number(net, "speed") * 1e6 / 8;  // Mb/s -> B/s
      const int nic = t.addNic(node, name + "." + attribute(net, "name"), {intra, 1e-6, 0});
      if (sw >= 0) t.addNetworkLink(nic, sw, {speed, networkLatency_s, 0});
    }
    // The NIC nearest in the PCI tree: the one sharing the deepest ancestor.
    for (std::size_t g = 0; g < gpus.size() && !nets.empty(); ++g) {
      const auto ga = ancestors(gpus[g]);
      int best = 0, bestDepth = -1;
      for (std::size_t k = 0; k < nets.size(); ++k) {
        const auto na = ancestors(nets[k]);
        int depth = 0;
        while (depth < static_cast<int>(std::min(ga.size(), na.size())) && ga[depth] == na[depth])
          ++depth;
        if (depth > bestDepth) bestDepth = depth, best = static_cast<int>(k);
      }
      t.setSlotNic(node, static_cast<int>(g), best);
    }
  }
  t.finish();
  return t;
}

}  // namespace ringlab::topo
