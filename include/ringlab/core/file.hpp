#pragma once
// Whole-file reading with a bound, for every input ringlab reads (profiles, tables, topology files,
// timelines, traces, measurements): only a regular file is read, and never past its format's
// bound, so /dev/zero, a FIFO or a huge file is refused before it is read, not after it has
// filled memory. The bounds per format are here, in one table (docs/reliability.md lists them).
#include <cstdint>
#include <string>
#include <string_view>

namespace ringlab {

// A format's name as errors say it and the largest file of it that is read. Each bound is far
// above any real file of the format and low enough that parsing it stays within about a GiB.
struct InputBound {
  std::string_view format;
  std::uint64_t maxBytes = 0;
};

inline constexpr InputBound kAnyInput{"an input", 256ull << 20};
// `ringlab bench --json` records and nccl-tests logs (a record with per-rank samples at p = 64,
// -n 1000 and 30 sizes is about 40 MiB).
inline constexpr InputBound kRecordInput{"a measurement file", 64ull << 20};
inline constexpr InputBound kProfileInput{"a profile", 1ull << 20};
inline constexpr InputBound kDecisionTableInput{"a decision table", 16ull << 20};
inline constexpr InputBound kTimelineInput{"a timeline", 64ull << 20};
inline constexpr InputBound kParametersInput{"a parameter list", 16ull << 20};
// torch.profiler traces are large; only the events a timeline needs are kept while parsing.
inline constexpr InputBound kTraceInput{"a torch trace", 256ull << 20};
inline constexpr InputBound kTopologyInput{"a topology file", 64ull << 20};
inline constexpr InputBound kNcclTopologyInput{"an NCCL topology dump", 16ull << 20};

// The file's bytes. Throws InvalidArgument "<what> <path>: ..." when the path is empty, missing or
// unreadable, a directory ("is a directory"), not a regular file ("not a regular file (a FIFO)"),
// or larger than the bound ("larger than 1 MiB, the limit for a profile").
std::string readTextFile(const std::string& path, std::string_view what,
                         InputBound bound = kAnyInput);

}  // namespace ringlab
