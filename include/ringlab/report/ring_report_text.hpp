#pragma once
// The text of `ringlab topo show` and `ringlab topo search`: the topology and placement, the
// predicted ring allreduce of rank order against the rings searched (or given), and for `show` the
// busiest links of both.
#include <string>
#include <string_view>

#include "ringlab/topo/ring_report.hpp"

namespace ringlab::report {

// `topo search`: the header lines, one row each for rank order and the chosen rings (time, step,
// bottleneck link, latency, orders), the speed-up against rank order and the lower bound, the
// method, and for one ring the line that applies it: `applyWith` (the front end's way to give a
// ring order: the CLI's "ringlab bench --ring-order") and the order.
std::string ringSearchText(const topo::RingReport& report, const topo::Topology& topology,
                           std::string_view applyWith = "the ring order");

// `topo show`: the same head without the apply line, then the link-hop bytes and the busiest
// `rows` links of both ring sets, or why the link table is left out (the report has no loads).
std::string ringShowText(const topo::RingReport& report, const topo::Topology& topology, int rows);

}  // namespace ringlab::report
