#pragma once
// The table `ringlab bench --roofline` prints after the sweep: each row's time against the time
// its memory traffic needs at this machine's rates, and what was counted.
#include <string>

#include "ringlab/record/roofline_report.hpp"

namespace ringlab::report {

std::string rooflineTable(const record::RooflineReport& report);

}  // namespace ringlab::report
