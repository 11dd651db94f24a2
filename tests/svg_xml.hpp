#pragma once
// A strict reader of the XML that ringlab's SVG pictures are, for tests: elements, attributes in
// quotes, text, the five predefined entities and numeric character references, an XML
// declaration, comments. Anything else, a mismatched end tag, an attribute given twice or text
// after the root throws std::runtime_error naming the offset: a picture that reads here is
// well-formed. Header-only; several test files of one binary include it.
#include <cctype>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab::test {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::vector<std::unique_ptr<XmlElement>> children;
  std::string text;  // every text inside, children's included, in order

  std::string attr(const std::string& key) const {
    const auto it = attributes.find(key);
    return it == attributes.end() ? "" : it->second;
  }
  bool hasClass(const std::string& c) const {
    const std::string classes = attr("class");
    for (std::size_t from = 0; from <= classes.size();) {
      std::size_t end = classes.find(' ', from);
      if (end == std::string::npos) end = classes.size();
      if (classes.compare(from, end - from, c) == 0) return true;
      from = end + 1;
    }
    return false;
  }
  // Every element below (not this one) for which `match` holds, in document order.
  std::vector<const XmlElement*> findAll(
      const std::function<bool(const XmlElement&)>& match) const {
    std::vector<const XmlElement*> out;
    for (const auto& c : children) {
      if (match(*c)) out.push_back(c.get());
      for (const XmlElement* d : c->findAll(match)) out.push_back(d);
    }
    return out;
  }
  std::vector<const XmlElement*> byClass(const std::string& c) const {
    return findAll([&](const XmlElement& e) { return e.hasClass(c); });
  }
  std::vector<const XmlElement*> byName(const std::string& n) const {
    return findAll([&](const XmlElement& e) { return e.name == n; });
  }
};

class XmlReader {
 public:
  explicit XmlReader(const std::string& text) : s_(text) {}

  std::unique_ptr<XmlElement> document() {
    skipMisc();
    if (!startsWith("<")) fail("no root element");
    auto root = element();
    skipMisc();
    if (i_ != s_.size()) fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("XML: " + what + " at offset " + std::to_string(i_));
  }
  bool startsWith(const char* t) const {
    return s_.compare(i_, std::char_traits<char>::length(t), t) == 0;
  }
  void skipSpace() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void skipPast(const char* end) {
    const std::size_t at = s_.find(end, i_);
    if (at == std::string::npos) fail(std::string("unterminated, expected ") + end);
    i_ = at + std::char_traits<char>::length(end);
  }
  void skipMisc() {
    for (;;) {
      skipSpace();
      if (startsWith("<?"))
        skipPast("?>");
      else if (startsWith("<!--"))
        skipPast("-->");
      else
        return;
    }
  }
  std::string name() {
    const std::size_t from = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) ||
                              std::string_view("_-:.").find(s_[i_]) != std::string_view::npos))
      ++i_;
    if (i_ == from) fail("a name expected");
    return s_.substr(from, i_ - from);
  }
  std::string decoded(const std::string& raw) const {
    std::string out;
    for (std::size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] == '<') throw std::runtime_error("XML: '<' in text or attribute: " + raw);
      if (raw[k] != '&') {
        out += raw[k];
        continue;
      }
      const std::size_t semi = raw.find(';', k);
      if (semi == std::string::npos) throw std::runtime_error("XML: bare '&' in " + raw);
      const std::string entity = raw.substr(k + 1, semi - k - 1);
      static const std::map<std::string, char> kNamed = {
          {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
      if (kNamed.count(entity)) {
        out += kNamed.at(entity);
      } else if (entity.size() > 1 && entity[0] == '#') {
        const unsigned long code = entity[1] == 'x' ? std::stoul(entity.substr(2), nullptr, 16)
                                                    : std::stoul(entity.substr(1));
        if (code < 0x80)
          out += static_cast<char>(code);
        else
          out += '?';  // tests compare ASCII labels only
      } else {
        throw std::runtime_error("XML: unknown entity &" + entity + ";");
      }
      k = semi;
    }
    return out;
  }
  std::unique_ptr<XmlElement> element() {
    ++i_;  // '<'
    auto e = std::make_unique<XmlElement>();
    e->name = name();
    for (;;) {
      skipSpace();
      if (startsWith("/>")) {
        i_ += 2;
        return e;
      }
      if (startsWith(">")) {
        ++i_;
        break;
      }
      const std::string key = name();
      skipSpace();
      if (!startsWith("=")) fail("'=' expected after attribute " + key);
      ++i_;
      skipSpace();
      const char quote = i_ < s_.size() ? s_[i_] : '\0';
      if (quote != '"' && quote != '\'') fail("quoted value expected for " + key);
      const std::size_t end = s_.find(quote, ++i_);
      if (end == std::string::npos) fail("unterminated value of " + key);
      if (!e->attributes.emplace(key, decoded(s_.substr(i_, end - i_))).second)
        fail("attribute given twice: " + key);
      i_ = end + 1;
    }
    for (;;) {
      const std::size_t lt = s_.find('<', i_);
      if (lt == std::string::npos) fail("unterminated element " + e->name);
      e->text += decoded(s_.substr(i_, lt - i_));
      i_ = lt;
      if (startsWith("<!--")) {
        skipPast("-->");
      } else if (startsWith("</")) {
        i_ += 2;
        if (name() != e->name) fail("end tag does not match <" + e->name + ">");
        skipSpace();
        if (!startsWith(">")) fail("'>' expected");
        ++i_;
        return e;
      } else {
        e->children.push_back(element());
        e->text += e->children.back()->text;
      }
    }
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

// The document's root; throws std::runtime_error when the text is not well-formed XML.
inline std::unique_ptr<XmlElement> parseXml(const std::string& text) {
  return XmlReader(text).document();
}

}  // namespace ringlab::test
