#pragma once
// The table `ringlab bench --roofline` prints after the sweep: each row's time against the time
// its memory traffic needs at this machine's rates, and what was counted.
#include <string>

#include "ringlab/measure/roofline_rows.hpp"

namespace ringlab::report {

std::string rooflineTable(const measure::RooflineReport& report);

}  // namespace ringlab::report
