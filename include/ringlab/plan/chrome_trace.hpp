#pragma once
// A gradient timeline from the Chrome trace that torch.profiler exports (export_chrome_trace).
//
// How it is read: the events named "torch::autograd::AccumulateGrad" (complete events, ph "X")
// mark the moment a parameter's gradient is accumulated, i.e. ready; their end (ts + dur) is the
// ready time. The backward thread is the thread holding most of them. A trace may cover several
// iterations: the events are split into consecutive groups of one per parameter; each group's
// backward starts at the first "autograd::engine::evaluate_function" event on that thread after
// the previous group, and ends at the group's last AccumulateGrad. Ready times are taken per
// group relative to its start, and the median over groups is kept per tensor.
//
// Mapping to parameters (the trace has no parameter names): gradients are assumed ready in
// reverse of the model's parameter order, the order autograd reaches the leaves of a model that
// uses its layers in definition order; when an event carries "Input Dims" (record_shapes) whose
// element count differs from that parameter's, the first unmatched parameter in reverse order with
// that count is taken instead. The parameters come from the user: name, element count, dtype, in
// model.parameters() order.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/plan/timeline.hpp"

namespace ringlab::plan {

struct ParameterInfo {
  std::string name;
  std::uint64_t count = 0;
  DataType dtype = DataType::Float32;
};

// Throws InvalidArgument naming `source`: no AccumulateGrad events, an event count that is not a
// multiple of the parameter count, an event whose shape matches no remaining parameter.
Timeline timelineFromChromeTrace(const nlohmann::json& trace,
                                 const std::vector<ParameterInfo>& parameters,
                                 const std::string& source);

// Whether a trace event is one timelineFromChromeTrace reads (a complete AccumulateGrad or
// evaluate_function event with a time): a reader may drop every other event while parsing, so
// that a large trace is held as the few events that matter.
bool isTimelineEvent(const nlohmann::json& event);

// The parameter list as CSV text: header "name,count,dtype", one row per parameter in
// model.parameters() order. Throws InvalidArgument naming the line.
std::vector<ParameterInfo> parametersFromCsv(const std::string& text, const std::string& source);

}  // namespace ringlab::plan
