#pragma once
// Refusing a structure by its estimated size before any of it is built: the one check behind
// sim's schedules (--max-memory) and generated topologies (kMaxTopologyBytes), so that a shape
// too large fails at once with the estimate instead of after minutes and gigabytes.
#include <cstdint>
#include <string_view>

namespace ringlab {

// Throws InvalidArgument "<what>: about 6.9 GiB, over <limitText>; <advice>" when
// `estimatedBytes` is over `limitBytes`.
void checkMemoryEstimate(std::uint64_t estimatedBytes, std::uint64_t limitBytes,
                         std::string_view what, std::string_view limitText,
                         std::string_view advice);

}  // namespace ringlab
