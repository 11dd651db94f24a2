#include "ringlab/core/units.hpp"

#include <cctype>
#include <limits>

#include "ringlab/core/error.hpp"

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
  for (char c : text.substr(pos)) suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::uint64_t scale = 1;
  if (suffix.empty() || suffix == "B") {
    scale = 1;
  } else {
    const char unit = suffix[0];
    const std::string rest = suffix.substr(1);
    if (rest != "" && rest != "B" && rest != "IB") return fail();
    switch (unit) {
      case 'K': scale = 1ull << 10; break;
      case 'M': scale = 1ull << 20; break;
      case 'G': scale = 1ull << 30; break;
      case 'T': scale = 1ull << 40; break;
      default: return fail();
    }
  }
  return checkedMultiply(value, scale, "size '" + std::string(text) + "'");
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
