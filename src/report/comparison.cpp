#include "ringlab/report/comparison.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/describe.hpp"
#include "ringlab/report/chart.hpp"

namespace ringlab::report {

std::string comparisonPreamble(const std::string& modelSource, const model::Profile& profile) {
  return fmt::format(
      "# ringlab compare: measured against the alpha-beta-gamma model [{}]\n# {}; model(us) is the "
      "prediction for the algorithm named on each table, out of place (oop) and in place (ip)\n",
      modelSource, model::describeModel(profile));
}

std::string comparisonTable(const record::Comparison& c) {
  std::string out = fmt::format("# {}, measured by {}\n", c.label, c.source);
  for (const std::string& note : c.notes) out += "# " + note + "\n";
  // The regime column: which of the model's regimes priced the oop and ip predictions.
  out += fmt::format("# {:>12} {:>13} {:>14} {:>10} {:>13} {:>14} {:>10}  {}\n", "size (B)",
                     "oop model(us)", "out-of-place", "meas/model", "ip model(us)", "in-place",
                     "meas/model", "regime oop/ip");
  for (const record::ComparedRow& r : c.rows) {
    const std::string inPlace =
        r.inPlaceUs ? fmt::format("{:>14.1f} {:>10.2f}", *r.inPlaceUs, *r.inPlaceRatio())
                    : fmt::format("{:>14} {:>10}", "-", "-");
    out += fmt::format("  {:>12} {:>13.1f} {:>14.1f} {:>10.2f} {:>13.1f} {}  {}/{}\n", r.bytes,
                       r.predictedUs, r.outOfPlaceUs, r.outOfPlaceRatio(), r.predictedInPlaceUs,
                       inPlace, model::regimeName(r.regime), model::regimeName(r.inPlaceRegime));
  }
  const double mae = record::medianAbsoluteError(c, 1 << 20);
  if (std::isnan(mae)) {
    out += "# no rows of 1 MiB or more: no bandwidth-range summary\n";
  } else {
    out += fmt::format("# median |measured/predicted - 1| over rows >= 1 MiB: {:.3f}\n", mae);
  }
  return out;
}

std::string comparisonSvg(const std::vector<record::Comparison>& comparisons,
                          const std::string& title) {
  Chart chart{.title = title,
              .x = {.title = "message size", .unit = Unit::Bytes},
              .y = {.title = "time", .unit = Unit::Micros}};
  for (std::size_t i = 0; i < comparisons.size(); ++i) {
    const record::Comparison& c = comparisons[i];
    // A key per comparison: two files may share a label.
    const std::string key = fmt::format("{} #{}", c.label, i);
    Series measured{.name = fmt::format("{} ({}): measured", c.label, c.source),
                    .key = key,
                    .role = "measured"};
    Series predicted{.name = fmt::format("{}: model", c.label),
                     .key = key,
                     .role = "model",
                     .dashed = true,
                     .markers = false};
    for (const record::ComparedRow& r : c.rows) {
      measured.points.emplace_back(static_cast<double>(r.bytes), r.outOfPlaceUs);
      predicted.points.emplace_back(static_cast<double>(r.bytes), r.predictedUs);
    }
    chart.series.push_back(std::move(measured));
    chart.series.push_back(std::move(predicted));
  }
  chart.notes = {"solid: measured, out of place", "dashed: the model's prediction"};
  return chartSvg(chart);
}

nlohmann::json comparisonJson(const record::Comparison& c, const std::string& modelSource) {
  nlohmann::json rows = nlohmann::json::array();
  for (const record::ComparedRow& r : c.rows) {
    const std::optional<double> inPlaceRatio = r.inPlaceRatio();
    rows.push_back(
        {{"bytes", r.bytes},
         {"predicted_us", r.predictedUs},
         {"out_of_place_us", r.outOfPlaceUs},
         {"out_of_place_ratio", r.outOfPlaceRatio()},
         {"predicted_in_place_us", r.predictedInPlaceUs},
         {"in_place_us", r.inPlaceUs ? nlohmann::json(*r.inPlaceUs) : nlohmann::json()},
         {"in_place_ratio", inPlaceRatio ? nlohmann::json(*inPlaceRatio) : nlohmann::json()},
         {"regime", model::regimeName(r.regime)},
         {"in_place_regime", model::regimeName(r.inPlaceRegime)}});
  }
  return {{"label", c.label},
          {"source", c.source},
          {"notes", c.notes},
          {"model", modelSource},
          {"rows", rows}};
}

}  // namespace ringlab::report
