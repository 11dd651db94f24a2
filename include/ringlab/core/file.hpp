#pragma once
// Whole-file reading with a bound, for every input ringlab reads (profiles, tables, topology files,
// timelines, traces, measurements): a file is never read past `maxBytes`, so /dev/zero or a huge
// file is refused instead of filling memory.
#include <cstdint>
#include <string>
#include <string_view>

namespace ringlab {

inline constexpr std::uint64_t kMaxInputFileBytes = 256ull << 20;

// The file's bytes. Throws InvalidArgument "<what> <path>: ..." when it is missing, unreadable, a
// directory, or larger than maxBytes.
std::string readTextFile(const std::string& path, std::string_view what,
                         std::uint64_t maxBytes = kMaxInputFileBytes);

}  // namespace ringlab
