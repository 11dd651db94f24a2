#pragma once
// The text of a calibration (`ringlab calibrate`): the measurements, the fits with their
// residuals, and the parameters that go into the profile.
#include <string>

#include "ringlab/measure/calibrate.hpp"
#include "ringlab/measure/record.hpp"
#include "ringlab/model/profile.hpp"

namespace ringlab::report {

// "# ringlab calibrate: transport inproc, host h, version v, date d"
std::string calibrationHeader(const std::string& transport, const measure::RunInfo& info);

// Concurrency table, link and kernel fits size by size, then the fitted parameters.
std::string calibrationText(const measure::Calibration& calibration, const model::Profile& profile);

}  // namespace ringlab::report
