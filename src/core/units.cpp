#include "ringlab/core/units.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>
#include <utility>

#include <fmt/format.h>

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

struct Unit {
  std::string_view name;
  double scale;  // base units (seconds, bytes per second) in one of this unit
};

// A kind of quantity: its name in messages, its units, the three units the example of a bare
// number shows, and what else is accepted.
struct QuantityKind {
  std::string_view name;
  std::span<const Unit> units;
  std::array<std::string_view, 3> examples;
  std::string_view alternative = "";
};

constexpr Unit kTimeUnits[] = {{"ns", 1e-9}, {"us", 1e-6}, {"µs", 1e-6}, {"ms", 1e-3}, {"s", 1}};
constexpr Unit kBandwidthUnits[] = {
    {"B/s", 1},          {"KB/s", 1e3},        {"kB/s", 1e3},      {"MB/s", 1e6},
    {"GB/s", 1e9},       {"TB/s", 1e12},       {"KiB/s", 0x1p10},  {"MiB/s", 0x1p20},
    {"GiB/s", 0x1p30},   {"TiB/s", 0x1p40},    {"Kb/s", 1e3 / 8},  {"kb/s", 1e3 / 8},
    {"Mb/s", 1e6 / 8},   {"Gb/s", 1e9 / 8},    {"Tb/s", 1e12 / 8}, {"Mbit/s", 1e6 / 8},
    {"Gbit/s", 1e9 / 8}, {"Tbit/s", 1e12 / 8}, {"Mbps", 1e6 / 8},  {"Gbps", 1e9 / 8}};
constexpr Unit kPerByteUnits[] = {{"ps/B", 1e-12}, {"ns/B", 1e-9}, {"us/B", 1e-6},
                                  {"µs/B", 1e-6},  {"ms/B", 1e-3}, {"s/B", 1}};

constexpr QuantityKind kTime{"a time", kTimeUnits, {"us", "ms", "s"}};
constexpr QuantityKind kBandwidth{"a bandwidth", kBandwidthUnits, {"GB/s", "GiB/s", "Gb/s"}};
constexpr QuantityKind kPerByte{
    "a per-byte cost", kPerByteUnits, {"ns/B", "ps/B", "us/B"}, ", or a rate such as 20GB/s"};

// "12.5 GB/s" -> "12.5" and "GB/s": the unit is the trailing run of letters, slashes and
// non-ASCII bytes (the µ of µs), after optional blanks.
std::pair<std::string_view, std::string_view> splitUnit(std::string_view text) {
  std::size_t split = text.size();
  while (split > 0) {
    const auto c = static_cast<unsigned char>(text[split - 1]);
    if (!std::isalpha(c) && c != '/' && c < 0x80) break;
    --split;
  }
  std::string_view number = text.substr(0, split);
  while (!number.empty() && number.back() == ' ') number.remove_suffix(1);
  return {number, text.substr(split)};
}

std::string acceptedUnits(const QuantityKind& kind) {
  std::string list;
  for (const Unit& u : kind.units) list += (list.empty() ? "" : ", ") + std::string(u.name);
  if (&kind == &kPerByte) list += ", or a rate (" + acceptedUnits(kBandwidth) + ")";
  return list;
}

// The value of `text` in base units; "0" alone is zero, any other number needs one of the units.
double parseQuantity(std::string_view text, const QuantityKind& kind) {
  const std::string shown = text.empty() ? "''" : printableText(text, 40);
  const std::string name(kind.name);
  const auto [number, unit] = splitUnit(text);
  double value = 0;
  try {
    value = parseNumber(number, name);
  } catch (const Error&) {
    throwInvalid(shown + ": not " + name + "; accepted units: " + acceptedUnits(kind));
  }
  if (unit.empty()) {
    if (text == "0") return 0;
    const std::string n(number);
    throwInvalid(fmt::format("{}: {} needs a unit, e.g. {}{}, {}{}, {}{}{}", shown, name, n,
                             kind.examples[0], n, kind.examples[1], n, kind.examples[2],
                             kind.alternative));
  }
  for (const Unit& u : kind.units) {
    if (unit != u.name) continue;
    if (value < 0) throwInvalid(shown + ": " + name + " must not be negative");
    return value * u.scale;
  }
  throwInvalid(shown + ": unknown unit '" + std::string(unit) + "' for " + name +
               "; accepted units: " + acceptedUnits(kind));
}

}  // namespace

double parseSeconds(std::string_view text) {
  return parseQuantity(text, kTime);
}

double parseBandwidth(std::string_view text) {
  const double bytesPerSecond = parseQuantity(text, kBandwidth);
  if (!(bytesPerSecond > 0)) throwInvalid(std::string(text) + ": a bandwidth must be > 0");
  return bytesPerSecond;
}

double parseSecondsPerByte(std::string_view text) {
  const std::string_view unit = splitUnit(text).second;
  if (unit.size() > 2 && unit.substr(unit.size() - 2) == "/s") return 1 / parseBandwidth(text);
  return parseQuantity(text, kPerByte);
}

std::string formatMicros(double seconds) {
  const double us = seconds * 1e6;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, us < 10 ? "%.3f us" : us < 1000 ? "%.1f us" : "%.0f us", us);
  return buffer;
}

std::vector<std::uint64_t> geometricSizes(std::uint64_t first, std::uint64_t last,
                                          std::uint64_t factor) {
  checkedStepFactor(factor, "size sweep factor");
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
