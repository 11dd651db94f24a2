#include "ringlab/core/memory_budget.hpp"

#include <fmt/format.h>

#include "ringlab/core/error.hpp"

namespace ringlab {

void checkMemoryEstimate(std::uint64_t estimatedBytes, std::uint64_t limitBytes,
                         std::string_view what, std::string_view limitText,
                         std::string_view advice) {
  if (estimatedBytes <= limitBytes) return;
  throwInvalid(fmt::format("{}: about {:.1f} GiB, over {}; {}", what,
                           static_cast<double>(estimatedBytes) / double(1ull << 30), limitText,
                           advice));
}

}  // namespace ringlab
