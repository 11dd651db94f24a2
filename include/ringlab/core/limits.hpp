#pragma once
// The one rank limit: the largest p that any file (a record, a log, a profile, a decision table, a
// topology) may state, any option may give and any job may have. Far above the largest jobs that
// run AllReduce today and low enough that a p read from a file is never an int that wraps.
// Commands that build per-rank state (bench, verify) refuse a p whose memory would not fit, by
// their estimate, before building it.
namespace ringlab {

inline constexpr int kMaxRanks = 1 << 20;

}  // namespace ringlab
