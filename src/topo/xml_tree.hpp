#pragma once
// Just enough XML for NCCL's topology files: elements with attributes, comments, declarations;
// text content is skipped (NCCL's files carry none that matters). Internal to the topo layer.
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ringlab::topo {

// NCCL's dumps nest about 10 deep (system, cpu, pci bridges, pci, gpu, nvlink); the bound keeps
// every walk of the tree and its destruction, which recurse, a few frames deep.
inline constexpr int kMaxXmlDepth = 64;

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::vector<std::unique_ptr<XmlElement>> children;
  XmlElement* parent = nullptr;

  // The attribute's value, or nullptr.
  const std::string* find(const std::string& key) const;
};

// The document as an element named "#document" holding the top-level elements. Throws
// InvalidArgument "<source>: not NCCL topology XML: <what> (at byte N)" on malformed input,
// elements nested deeper than kMaxXmlDepth among it.
std::unique_ptr<XmlElement> parseXml(const std::string& text, const std::string& source);

}  // namespace ringlab::topo
