#include "ringlab/core/units.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab {

std::uint64_t checkedMultiply(std::uint64_t a, std::uint64_t b, std::string_view what) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
    throwInvalid(std::string(what) + ": " + std::to_string(a) + " x " + std::to_string(b) +
                 " overflows 64 bits");
  }
  return a * b;
}

std::uint64_t parseSize(std::string_view text) {
  const auto fail = [&]() -> std::uint64_t {
    throwInvalid("invalid size '" + std::string(text) +
                 "': expected a whole number of bytes with an optional suffix K, M, G, T "
                 "(powers of 1024; KiB/KB/B also accepted), e.g. 8, 4K, 64KiB, 2GiB");
  };
  std::size_t pos = 0;
  std::uint64_t value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[pos] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
      throwInvalid("size '" + std::string(text) + "' does not fit in 64 bits");
    }
    value = value * 10 + digit;
    ++pos;
  }
  if (pos == 0) return fail();
  std::string suffix;
  for (char c : text.substr(pos))
    suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::uint64_t scale = 1;
  if (suffix.empty() || suffix == "B") {
    scale = 1;
  } else {
    const char unit = suffix[0];
    const std::string rest = suffix.substr(1);
    if (rest != "" && rest != "B" && rest != "IB") return fail();
    switch (unit) {
      case 'K':
        scale = 1ull << 10;
        break;
      case 'M':
        scale = 1ull << 20;
        break;
      case 'G':
        scale = 1ull << 30;
        break;
      case 'T':
        scale = 1ull << 40;
        break;
      default:
        return fail();
    }
  }
  return checkedMultiply(value, scale, "size '" + std::string(text) + "'");
}

namespace {

// Splits "12.5GB/s" into 12.5 and "GB/s" (the unit: the trailing letters and slashes, after
// optional blanks); throws naming `expected` when what is before it is not a number.
std::pair<double, std::string> splitNumber(std::string_view text, const std::string& expected) {
  std::size_t split = text.size();
  while (split > 0 &&
         (std::isalpha(static_cast<unsigned char>(text[split - 1])) || text[split - 1] == '/')) {
    --split;
  }
  std::string_view number = text.substr(0, split);
  while (!number.empty() && number.back() == ' ') number.remove_suffix(1);
  const std::string s(text);
  double value = 0;
  try {
    value = parseNumber(number, "value");
  } catch (const Error&) {
    throwInvalid("invalid value '" + s + "': expected " + expected);
  }
  if (value < 0) throwInvalid("invalid value '" + s + "': must not be negative");
  return {value, std::string(text.substr(split))};
}

}  // namespace

double parseSeconds(std::string_view text) {
  const std::string expected = "a duration such as 5us, 1.5ms, 80ns or 0.002s";
  const auto [value, unit] = splitNumber(text, expected);
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1.0}, {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  for (const auto& [name, scale] : kUnits) {
    if (unit == name) return value * scale;
  }
  throwInvalid("invalid duration '" + std::string(text) + "': expected " + expected);
}

double parseBandwidth(std::string_view text) {
  const std::string expected = "a bandwidth such as 12.5GB/s, 900MB/s or 100Gb/s (bits)";
  const auto [value, unit] = splitNumber(text, expected);
  static const std::pair<const char*, double> kUnits[] = {
      {"B/s", 1.0},       {"KB/s", 1e3},       {"MB/s", 1e6},       {"GB/s", 1e9},
      {"TB/s", 1e12},     {"Kb/s", 1e3 / 8},   {"Mb/s", 1e6 / 8},   {"Gb/s", 1e9 / 8},
      {"Tb/s", 1e12 / 8}, {"Gbit/s", 1e9 / 8}, {"Mbit/s", 1e6 / 8}, {"Gbps", 1e9 / 8}};
  for (const auto& [name, scale] : kUnits) {
    if (unit == name) {
      if (value <= 0) throwInvalid("bandwidth '" + std::string(text) + "' must be > 0");
      return value * scale;
    }
  }
  throwInvalid("invalid bandwidth '" + std::string(text) + "': expected " + expected);
}

std::string formatMicros(double seconds) {
  const double us = seconds * 1e6;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, us < 10 ? "%.3f us" : us < 1000 ? "%.1f us" : "%.0f us", us);
  return buffer;
}

std::vector<std::uint64_t> geometricSizes(std::uint64_t first, std::uint64_t last,
                                          std::uint64_t factor) {
  if (factor < 2) throwInvalid("size sweep factor " + std::to_string(factor) + ": must be >= 2");
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = first; s <= last; s *= factor) {
    sizes.push_back(s);
    if (s > last / factor) break;  // the next size would pass `last` (or overflow)
  }
  return sizes;
}

std::vector<std::uint64_t> sizeSweep(std::uint64_t first, std::uint64_t last, std::uint64_t factor,
                                     std::uint64_t step) {
  if (step == 0) return geometricSizes(first, last, factor);
  const std::uint64_t count = first > last ? 0 : (last - first) / step + 1;
  if (count > kMaxLinearSizes) {
    throwInvalid("a linear step of " + std::to_string(step) + " bytes from " +
                 std::to_string(first) + " to " + std::to_string(last) + " gives " +
                 std::to_string(count) + " sizes; at most " + std::to_string(kMaxLinearSizes));
  }
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t k = 0; k < count; ++k) sizes.push_back(first + k * step);
  return sizes;
}

std::string formatSize(std::uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  std::uint64_t value = bytes;
  while (unit < 4 && value >= 1024 && value % 1024 == 0) {
    value /= 1024;
    ++unit;
  }
  return std::to_string(value) + " " + kUnits[unit];
}

}  // namespace ringlab
