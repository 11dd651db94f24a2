#pragma once
// The Gantt picture of `ringlab plan --gantt`: the backward pass (with each gradient's ready time)
// against each plan's bucket transfers on the one communication stream, as a standalone SVG.
// Bounded in size: adjacent buckets too narrow to draw apart are drawn as one bar (a range, named
// in its tooltip and counted in a note), and ready ticks on the same pixel once, so that a
// 20,000-tensor timeline gives a picture of about 170 KB rather than megabytes.
#include <string>
#include <vector>

#include "ringlab/plan/compare.hpp"
#include "ringlab/plan/execution.hpp"

namespace ringlab::report {

struct GanttRow {
  std::string label;
  plan::PredictedIteration prediction;
};

std::string ganttSvg(const plan::Timeline& timeline, const std::vector<GanttRow>& rows,
                     const std::string& title);

// The picture of `ringlab plan --gantt`: one row per plan compared, for p ranks.
std::string planGanttSvg(const plan::Timeline& timeline, const plan::PlanComparison& comparison,
                         int ranks);

}  // namespace ringlab::report
