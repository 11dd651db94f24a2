#pragma once
// The backward timeline `ringlab plan` prices: ringlab's CSV/JSON timeline, or a torch.profiler
// Chrome trace with the parameter list that names its tensors.
#include <string>

#include "ringlab/plan/timeline.hpp"

namespace ringlab::io {

// Exactly one of timeline and trace is given; trace needs params.
struct TimelineSource {
  std::string timeline;  // ringlab's CSV or JSON (docs/BUCKETS.md)
  std::string trace;     // torch.profiler Chrome trace
  std::string params;    // trace: CSV name,count,dtype per parameter, in model.parameters() order
};

// The caller's names for the three files, in errors (labels: see model_files.hpp).
struct TimelineLabels {
  std::string timeline = "a timeline", trace = "a trace", params = "its parameter list";
};

// Throws InvalidArgument naming the input, the file and the problem.
plan::Timeline loadTimeline(const TimelineSource& source, const TimelineLabels& labels = {});

// The timeline as ringlab JSON (what --write-timeline writes); `what` names the option in errors.
void writeTimelineFile(const plan::Timeline& timeline, const std::string& path,
                       std::string_view what);

}  // namespace ringlab::io
