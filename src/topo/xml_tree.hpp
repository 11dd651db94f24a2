#pragma once
// Just enough XML for NCCL's topology files: elements with attributes, comments, declarations;
// text content is skipped (NCCL's files carry none that matters). Internal to the topo layer.
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ringlab::topo {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::vector<std::unique_ptr<XmlElement>> children;
  XmlElement* parent = nullptr;

  // The attribute's value, or nullptr.
  const std::string* find(const std::string& key) const;
};

// The document as an element named "#document" holding the top-level elements. Throws
// InvalidArgument "<source>: not NCCL topology XML: <what> (at byte N)" on malformed input.
std::unique_ptr<XmlElement> parseXml(const std::string& text, const std::string& source);

}  // namespace ringlab::topo
