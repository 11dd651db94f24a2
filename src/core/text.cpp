#include "ringlab/core/text.hpp"

#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"

namespace ringlab {

std::vector<std::string> splitList(std::string_view text, char separator) {
  std::vector<std::string> items;
  if (text.empty()) return items;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    items.emplace_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return items;
    start = end + 1;
  }
}

std::string printableText(std::string_view text, std::size_t maxBytes) {
  const std::string_view shown = text.substr(0, maxBytes);
  std::string out;
  out.reserve(shown.size());
  for (const char c : shown) {
    const auto byte = static_cast<unsigned char>(c);
    if (isPrintableByte(byte)) {
      out += c;
    } else {
      out += fmt::format("\\x{:02x}", byte);
    }
  }
  if (text.size() > shown.size())
    out += fmt::format(" [{} more bytes]", text.size() - shown.size());
  return out;
}

std::string printableLines(std::string_view text) {
  // A carriage return is kept only as half of a CRLF line end: alone, it returns the cursor.
  const auto keptAt = [&](std::size_t i) {
    const char c = text[i];
    return isPrintableByte(static_cast<unsigned char>(c)) || c == '\t' || c == '\n' ||
           (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n');
  };
  std::size_t first = 0;
  while (first < text.size() && keptAt(first)) ++first;
  if (first == text.size()) return std::string(text);
  std::string out(text.substr(0, first));
  out.reserve(text.size() + 16);
  for (std::size_t i = first; i < text.size(); ++i) {
    if (keptAt(i)) {
      out += text[i];
    } else {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
    }
  }
  return out;
}

double parseNumber(std::string_view text, std::string_view what) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    throwInvalid(fmt::format("{} '{}': not a number", what, printableText(text, 40)));
  }
  return value;
}

std::int64_t parseInteger(std::string_view text, std::string_view what, std::int64_t min,
                          std::int64_t max) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min ||
      value > max) {
    throwInvalid(fmt::format("{} '{}': must be a whole number in {}..{}", what,
                             printableText(text, 40), min, max));
  }
  return value;
}

double parseNumberIn(std::string_view text, std::string_view what, double min, double max) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value) || value < min || value > max) {
    throwInvalid(fmt::format("{} '{}': must be a number in {}..{}", what, printableText(text, 40),
                             formatNumber(min), formatNumber(max)));
  }
  return value;
}

std::string lowerCase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string formatNumber(double value) {
  return fmt::format("{:.6g}", value);
}

}  // namespace ringlab
