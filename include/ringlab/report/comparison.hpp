#pragma once
// Measured against predicted (record::Comparison) as a table and as a log-log SVG chart.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/record/comparison.hpp"

namespace ringlab::report {

// "# <label>, measured by <source>", "# <note>" for each note, a header, one row per size (size,
// model(us), out-of-place, meas/model, in-place, meas/model; "-" where there is no in-place time)
// and the median |measured/predicted - 1| over rows >= 1 MiB.
// "# ringlab compare: measured against the alpha-beta-gamma model [source]" and the parameters.
std::string comparisonPreamble(const std::string& modelSource, const model::Profile& profile);

std::string comparisonTable(const record::Comparison& comparison);

// The same figures as JSON (`ringlab compare --json`): label, source, notes, where the model's
// parameters came from, and per size the predicted and measured times and their ratios (null
// where there is no in-place time).
nlohmann::json comparisonJson(const record::Comparison& comparison, const std::string& modelSource);

// One log-log chart: time against size, measured (solid, dots) and predicted (dashed), one colour
// per comparison; sizes labelled 1 B, 1 KiB, 1 MiB ..., times 1 us, 1 ms, 1 s. A self-contained
// SVG document. Throws InvalidArgument when there is nothing to plot (no positive size and time).
std::string comparisonSvg(const std::vector<record::Comparison>& comparisons,
                          const std::string& title);

}  // namespace ringlab::report
