#include "ringlab/core/environment.hpp"

#include <charconv>
#include <cstdlib>
#include <string>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab {

std::int64_t environmentInteger(std::string_view name, std::string_view text, std::string_view what,
                                std::int64_t min, std::int64_t max) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min ||
      value > max) {
    throwInvalid(std::string(name) + "='" + printableText(text, 40) + "': " + std::string(what) +
                 " must be an integer in " + std::to_string(min) + ".." + std::to_string(max));
  }
  return value;
}

std::optional<std::int64_t> readEnvironmentInteger(const char* name, std::string_view what,
                                                   std::int64_t min, std::int64_t max) {
  const char* text = std::getenv(name);
  if (!text) return std::nullopt;
  return environmentInteger(name, text, what, min, max);
}

}  // namespace ringlab
