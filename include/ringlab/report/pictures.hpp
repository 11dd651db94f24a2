#pragma once
// The pictures of `ringlab bench --svg`, `tune --svg` and `sim --svg`: each a chart's data
// (report/chart.hpp) computed from what the command produced, and the SVG of it.
#include <string>
#include <vector>

#include "ringlab/model/decision_table.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/record/sim_record.hpp"
#include "ringlab/report/chart.hpp"
#include "ringlab/sim/allreduce_sim.hpp"

namespace ringlab::report {

// Another run drawn beside the one measured, and the name the legend gives it (its file).
struct Overlay {
  std::string name;
  record::RunRecord record;
};

// busbw against size: the run (out-of-place busbw, in-place where a row has no out-of-place
// time), the model's busbw as a dashed line in the run's colour where rows carry a prediction
// (bench with a profile), and each overlay at its own p in its own colour. Throws InvalidArgument
// "nothing to plot ..." when no row has a time.
Chart benchChart(const record::RunRecord& run, const std::vector<Overlay>& overlays);

// Every algorithm's measured time against size, one colour each, under a strip of the fastest
// per size range (the decision table's rules; a range ends halfway, on the log scale, between
// the last size it won and the next measured size).
Chart tuneChart(const model::DecisionTable& table);

// Simulated busbw against size, one series per simulated run (one colour per algorithm).
struct SimSeries {
  record::RunInfo info;
  std::vector<sim::SimRow> rows;
};
Chart simChart(const std::vector<SimSeries>& runs, const std::string& title);

}  // namespace ringlab::report
