#pragma once
// The text of a calibration (`ringlab calibrate`): the measurements, the fits with their
// residuals, and the parameters that go into the profile.
#include <string>

#include "ringlab/model/profile.hpp"
#include "ringlab/record/calibration.hpp"
#include "ringlab/record/record.hpp"

namespace ringlab::report {

// "# ringlab calibrate: transport shm, p 2, placement ..., host h, version v, date d"
std::string calibrationHeader(const std::string& transport, int ranks, const record::RunInfo& info);

// Concurrency table, link and kernel fits size by size (median over rounds, spread between
// rounds, residual), then the fitted parameters with their 95% intervals, and the reasons the fit
// is unstable when it is.
std::string calibrationText(const record::Calibration& calibration, const model::Profile& profile);

// "warning: profile p.json is UNSTABLE ...": the flag calibrate set, with its reasons and what to
// do, for every command that uses the profile; "" for a stable one (or one written before the
// flag existed).
std::string unstableProfileWarning(const model::Profile& profile, const std::string& path);

}  // namespace ringlab::report
