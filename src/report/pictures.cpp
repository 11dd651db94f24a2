#include "ringlab/report/pictures.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "ringlab/core/units.hpp"
#include "ringlab/model/bandwidth.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/report/bench_table.hpp"

namespace ringlab::report {
namespace {

const Axis kSizeAxis{.title = "message size (bytes per rank)", .unit = Unit::Bytes};
const Axis kBusbwAxis{.title = "busbw (nccl-tests' bus bandwidth)", .unit = Unit::GBps};

// The time a row's busbw is drawn from: out of place, as nccl-tests' plots do; in place when the
// row has no out-of-place time.
std::optional<double> rowMicros(const record::RecordRow& row) {
  if (row.outOfPlace && row.outOfPlace->timeUs > 0) return row.outOfPlace->timeUs;
  if (row.inPlace && row.inPlace->timeUs > 0) return row.inPlace->timeUs;
  return std::nullopt;
}

Series busbwSeries(const record::RunRecord& r, std::string name, std::string key,
                   std::string role) {
  Series s{.name = std::move(name), .key = std::move(key), .role = std::move(role)};
  for (const record::RecordRow& row : r.rows) {
    if (const auto us = rowMicros(row))
      s.points.emplace_back(row.bytes, model::allReduceBusbwGBps(row.bytes, *us, r.run.ranks));
  }
  return s;
}

std::string runAlgorithm(const record::RunRecord& r) {
  return r.run.algorithm.empty() ? r.source : r.run.algorithm;
}

}  // namespace

Chart benchChart(const record::RunRecord& run, const std::vector<Overlay>& overlays) {
  const std::string algorithm = runAlgorithm(run);
  Chart chart{
      .title = fmt::format("ringlab bench: allreduce {}, p {}, {} {}, transport {}", algorithm,
                           run.run.ranks, run.run.dtype, run.run.op, run.run.transport),
      .x = kSizeAxis,
      .y = kBusbwAxis};
  chart.series.push_back(busbwSeries(
      run, fmt::format("this run: {}, p {}", algorithm, run.run.ranks), algorithm, "measured"));
  Series predicted{.name = fmt::format("model: {}, p {}", algorithm, run.run.ranks),
                   .key = algorithm,
                   .role = "model",
                   .dashed = true,
                   .markers = false};
  for (const record::RecordRow& row : run.rows) {
    if (row.predictedUs) {
      predicted.points.emplace_back(
          row.bytes, model::allReduceBusbwGBps(row.bytes, *row.predictedUs, run.run.ranks));
    }
  }
  if (!predicted.points.empty()) chart.series.push_back(std::move(predicted));
  for (const Overlay& o : overlays) {
    chart.series.push_back(busbwSeries(
        o.record, fmt::format("{}: {}, p {}", o.name, runAlgorithm(o.record), o.record.run.ranks),
        o.name, "overlay"));
  }
  chart.notes = {
      fmt::format("busbw = size / time x 2(p-1)/p, time the median of the {}, out of place",
                  iterationTimeText(run.overRanks.value_or(record::OverRanks::Max)))};
  if (chart.series.size() > 1 && chart.series[1].role == "model")
    chart.notes.push_back("dashed: the model's busbw with the profile given");
  return chart;
}

Chart tuneChart(const model::DecisionTable& table) {
  Chart chart{
      .title = fmt::format("ringlab tune: allreduce, p {}, {}, transport {}: the choice per size",
                           table.ranks, table.dtype, table.transport),
      .x = kSizeAxis,
      .y = {.title = "time (median of the iterations, median of the rounds)",
            .unit = Unit::Micros}};
  // The algorithms in the registry's order, then any other the table names.
  std::vector<std::string> names;
  for (const model::MeasuredSize& m : table.measured)
    for (const auto& entry : m.timeUs)
      if (std::find(names.begin(), names.end(), entry.first) == names.end())
        names.push_back(entry.first);
  const std::vector<std::string> order = model::algorithmNames();
  const auto rank = [&](const std::string& n) { return std::find(order.begin(), order.end(), n); };
  std::stable_sort(names.begin(), names.end(),
                   [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  for (const std::string& name : names) {
    Series s{.name = name, .key = name, .role = "measured"};
    for (const model::MeasuredSize& m : table.measured)
      if (m.timeUs.count(name)) s.points.emplace_back(m.bytes, m.timeUs.at(name));
    chart.series.push_back(std::move(s));
  }
  // A band per rule, from halfway (geometrically) after the previous measured size.
  const std::vector<model::DecisionRule> rules = table.rules();
  const auto edge = [&](std::size_t rule) {
    if (rule == 0) return 0.0;
    const auto& m = table.measured;
    const auto it = std::find_if(m.begin(), m.end(), [&](const model::MeasuredSize& s) {
      return s.bytes == rules[rule].fromBytes;
    });
    return it == m.begin() ? static_cast<double>(it->bytes)
                           : std::sqrt(static_cast<double>(it->bytes) * (it - 1)->bytes);
  };
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const double to = i + 1 < rules.size() ? edge(i + 1) : 1e300;
    chart.bands.push_back(
        {edge(i), to, rules[i].algorithm,
         fmt::format("{}: from {}", rules[i].algorithm, formatSize(rules[i].fromBytes))});
  }
  chart.bandTitle = "chosen";
  chart.notes = {
      fmt::format("strip: the decision table's rules; {} kept unless another is ahead "
                  "beyond the noise (95% interval)",
                  table.defaultAlgorithm.empty() ? "the default" : table.defaultAlgorithm),
      "each run checked"};
  return chart;
}

Chart simChart(const std::vector<SimSeries>& runs, const std::string& title) {
  Chart chart{.title = title, .x = kSizeAxis, .y = kBusbwAxis};
  for (const SimSeries& r : runs) {
    Series s{.name = fmt::format("{}, p {} (simulated)", r.info.algorithm, r.info.ranks),
             .key = r.info.algorithm,
             .role = "simulated"};
    for (const sim::SimRow& row : r.rows) s.points.emplace_back(row.bytes, row.busbw_GBps);
    chart.series.push_back(std::move(s));
  }
  chart.notes = {"busbw = size / simulated time x 2(p-1)/p"};
  return chart;
}

}  // namespace ringlab::report
