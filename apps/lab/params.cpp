#include "params.hpp"

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/core/units.hpp"

namespace ringlab::lab {
namespace {

// Long values are echoed shortened: the error message must stay one readable line.
std::string shown(const std::string& value) {
  return printableText(value.size() <= 40 ? value : value.substr(0, 40) + "...");
}

bool hasControlCharacter(const std::string& text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

}  // namespace

Params Params::fromPairs(const std::multimap<std::string, std::string>& pairs) {
  Params p;
  for (const auto& [name, value] : pairs) {
    // A NUL (%00) would cut the value wherever it is read as a C string; no parameter needs one.
    if (hasControlCharacter(name) || hasControlCharacter(value)) {
      throw ApiError(printableText(name),
                     "parameter '" + shown(name) + "' = '" + shown(value) +
                         "': control characters (such as %00) are not allowed");
    }
    if (!p.values_.emplace(name, value).second) {
      throw ApiError(name, "parameter '" + shown(name) + "' is given more than once");
    }
  }
  return p;
}

void Params::allowOnly(std::initializer_list<const char*> allowed) const {
  for (const auto& [name, value] : values_) {
    bool known = false;
    for (const char* a : allowed) known = known || name == a;
    if (known) continue;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    throw ApiError(name, "unknown parameter '" + shown(name) + "'; this endpoint takes " + list);
  }
}

std::string Params::text(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

long long Params::integer(const std::string& name, long long lo, long long hi,
                          std::optional<long long> fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) {
    if (fallback) return *fallback;
    throw ApiError(name, name + " is missing: give a whole number in " + std::to_string(lo) + ".." +
                             std::to_string(hi));
  }
  const std::string& v = it->second;
  try {
    return parseInteger(v, name, lo, hi);
  } catch (const Error&) {
    throw ApiError(name, name + " = '" + shown(v) + "': must be a whole number in " +
                             std::to_string(lo) + ".." + std::to_string(hi));
  }
}

double Params::number(const std::string& name, double lo, double hi,
                      std::optional<double> fallback) const {
  const auto it = values_.find(name);
  const std::string range = fmt::format("{:g}..{:g}", lo, hi);
  if (it == values_.end()) {
    if (fallback) return *fallback;
    throw ApiError(name, name + " is missing: give a number in " + range);
  }
  const std::string& v = it->second;
  const auto fail = [&] {
    throw ApiError(name, name + " = '" + shown(v) + "': must be a number in " + range);
  };
  double value = 0;
  try {
    value = parseNumber(v, name);
  } catch (const Error&) {
    fail();
  }
  if (value < lo || value > hi) fail();
  return value;
}

double Params::quantity(const std::string& name, double (*parse)(std::string_view), double lo,
                        double hi, const std::string& range, double fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& v = it->second;
  double value = 0;
  try {
    value = parse(v);
  } catch (const Error& e) {
    // The parser's message starts with the value and shows the accepted forms; a long value is
    // echoed shortened instead.
    if (v.size() > 40) throw ApiError(name, name + " = '" + shown(v) + "': must be in " + range);
    throw ApiError(name, name + ": " + e.what());
  }
  if (!(value >= lo && value <= hi)) {
    throw ApiError(name, name + " = '" + shown(v) + "': must be in " + range);
  }
  return value;
}

std::uint64_t Params::size(const std::string& name, std::uint64_t maxBytes,
                           const std::string& fallback) const {
  const std::string v = text(name, fallback);
  std::uint64_t bytes = 0;
  try {
    bytes = parseSize(v);
  } catch (const Error& e) {
    throw ApiError(name, name + ": " + e.what());
  }
  if (bytes > maxBytes) {
    throw ApiError(name,
                   name + " = '" + shown(v) + "': at most " + formatSize(maxBytes) + " in the lab");
  }
  return bytes;
}

DataType Params::dataType(const std::string& name, const std::string& fallback) const {
  try {
    return parseDataType(text(name, fallback));
  } catch (const Error& e) {
    throw ApiError(name, name + ": " + e.what());
  }
}

std::string Params::choice(const std::string& name, std::initializer_list<const char*> choices,
                           const std::string& fallback) const {
  const std::string v = text(name, fallback);
  std::string list;
  for (const char* c : choices) {
    if (v == c) return v;
    list += (list.empty() ? "" : ", ") + std::string(c);
  }
  throw ApiError(name, name + " = '" + shown(v) + "': valid are " + list);
}

}  // namespace ringlab::lab
