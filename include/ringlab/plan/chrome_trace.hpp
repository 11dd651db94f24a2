#pragma once
// A gradient timeline from the Chrome trace that torch.profiler exports (export_chrome_trace).
//
// How it is read. The ready order and the mapping to parameters come from the trace only:
//
// - A marked trace (recorded with ringlab.torch.timeline.mark_gradients): a complete event named
//   kGradReadyMarker + the parameter's name is emitted by a post-hook on each parameter's
//   AccumulateGrad node, right after its gradient is accumulated; the marker's start is the ready
//   time, and the g-th marker of a parameter belongs to iteration g.
// - An unmarked trace: the events named "torch::autograd::AccumulateGrad" on the backward thread
//   (the thread holding most of them) are split into consecutive groups of one per parameter; each
//   event's end is a ready time, and its gradient's shape ("Input Dims", written with
//   record_shapes=True by torch builds with kineto) must fit exactly one parameter's element
//   count. Where it fits several (parameters of the same size), or the events carry no shapes (the
//   legacy exporter of torch builds without kineto writes no arguments), the trace cannot tell
//   which gradient is which, and it is refused with the ready positions and candidates named:
//   nothing is assumed about the order.
//
// An iteration's backward starts at the first "autograd::engine::evaluate_function" event on its
// thread after the previous iteration's last gradient, and ends at its last gradient. Per tensor
// the median of its ready times over the iterations is kept; tensors are listed in order of it.
// The parameters come from the user: name, element count, dtype, in model.parameters() order.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/plan/timeline.hpp"

namespace ringlab::plan {

// The name of the marker event, followed by the parameter's name (ringlab.torch.timeline writes
// it).
inline constexpr const char* kGradReadyMarker = "ringlab.grad_ready: ";

struct ParameterInfo {
  std::string name;
  std::uint64_t count = 0;
  DataType dtype = DataType::Float32;
};

// Throws InvalidArgument naming `source`: no AccumulateGrad events and no markers, a marker naming
// no parameter or a parameter marked fewer times than others, an event count that is not a
// multiple of the parameter count, gradients the trace cannot tell apart (the positions and the
// candidate parameters named), an event whose shape matches no remaining parameter.
Timeline timelineFromChromeTrace(const nlohmann::json& trace,
                                 const std::vector<ParameterInfo>& parameters,
                                 const std::string& source);

// The parameter list as CSV text: header "name,count,dtype", one row per parameter in
// model.parameters() order. Throws InvalidArgument naming the line.
std::vector<ParameterInfo> parametersFromCsv(const std::string& text, const std::string& source);

}  // namespace ringlab::plan
