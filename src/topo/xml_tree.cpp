#include "topo/xml_tree.hpp"

#include <cctype>

#include "ringlab/core/error.hpp"

namespace ringlab::topo {
namespace {

class XmlReader {
 public:
  XmlReader(const std::string& text, std::string source)
      : text_(text), source_(std::move(source)) {}

  std::unique_ptr<XmlElement> parse() {
    auto root = std::make_unique<XmlElement>();
    root->name = "#document";
    XmlElement* current = root.get();
    int depth = 0;  // of `current` below the document
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
        --depth;
        continue;
      }
      auto element = std::make_unique<XmlElement>();
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
        // XML's attribute-value normalisation: a tab or line end in a value is a blank, so no
        // value (echoed in a message) spans lines.
        std::string value = text_.substr(pos_ + 1, end - pos_ - 1);
        for (char& c : value)
          if (c == '\t' || c == '\n' || c == '\r') c = ' ';
        element->attributes[key] = std::move(value);
        pos_ = end + 1;
      }
      XmlElement* raw = element.get();
      current->children.push_back(std::move(element));
      if (selfClosing) continue;
      if (++depth > kMaxXmlDepth) {
        fail("elements nested deeper than " + std::to_string(kMaxXmlDepth) +
             " levels (NCCL's own files nest about 10)");
      }
      current = raw;
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

}  // namespace

const std::string* XmlElement::find(const std::string& key) const {
  const auto it = attributes.find(key);
  return it == attributes.end() ? nullptr : &it->second;
}

std::unique_ptr<XmlElement> parseXml(const std::string& text, const std::string& source) {
  return XmlReader(text, source).parse();
}

}  // namespace ringlab::topo
