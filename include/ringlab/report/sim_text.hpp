#pragma once
// `ringlab sim`'s text: the lines before the table, the table (report/bench_table.hpp's, so that a
// simulated and a measured run compare line by line; #wrong is N/A, in place equals out of place),
// and the critical path and busiest links of the largest size.
#include <string>

#include "ringlab/record/sim_record.hpp"
#include "ringlab/sim/allreduce_sim.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/topo/topology.hpp"

namespace ringlab::report {

// What ran where, how the reduction is priced, the conventions, then the table's header lines.
std::string simPreamble(const record::SimRun& run);

// One table row: the simulated time out of place and in place.
std::string simTableRow(const sim::SimRow& row, const record::RunInfo& info);

// The path's ends: its first 4 entries and the last 16 that decide the finish, one line each
// ("step S  SRC -> DST  START -> END us  LINK", or a range of steps repeated as a time shift).
std::string simCriticalPath(const sim::SimResult& last, const topo::Topology& topology);

// The `links` busiest links by utilisation (bytes / (bandwidth x time)), one line each.
std::string simBusiestLinks(const sim::SimResult& last, const topo::Topology& topology, int links);

}  // namespace ringlab::report
