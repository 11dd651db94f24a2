#pragma once
// ringlab's own gradient-timeline format, as JSON and as CSV (both text in, Timeline out; the
// caller reads the file). Times are microseconds from the backward's start.
//
// JSON:
//   {"format": "ringlab-grad-timeline/1",
//    "backward_end_us": 5200.0, "forward_us": 2100.0, "optimizer_step_us": 300.0,
//    "copy_bandwidth_GBps": 8.5,                      (optional: measured memory copy, 1e9 B/s)
//    "tensors": [{"name": "fc3.bias", "count": 10, "dtype": "float32", "ready_us": 41.5,
//                 "param_index": 5}, ...]}            (param_index optional, for all or none)
// CSV: '#'-comment lines, of which "# key = value" lines give the scalar fields above, then the
// header "name,count,dtype,ready_us" (optionally ",param_index") and one row per tensor.
// Tensors are listed in the order their gradients become ready.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ringlab/plan/timeline.hpp"

namespace ringlab::plan {

inline constexpr const char* kTimelineFormat = "ringlab-grad-timeline/1";

// Each throws InvalidArgument naming `source`, the record (tensor index and name, or CSV line)
// and the problem, and validates the result (validate()).
Timeline timelineFromJson(const nlohmann::json& json, const std::string& source);
Timeline timelineFromCsv(std::string_view text, const std::string& source);
// JSON when the text starts with '{', CSV otherwise.
Timeline parseTimeline(std::string_view text, const std::string& source);

nlohmann::json toJson(const Timeline& timeline);

}  // namespace ringlab::plan
