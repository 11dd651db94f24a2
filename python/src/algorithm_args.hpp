#pragma once
// An algorithm as the keyword arguments algo, ring_order | ring_stride, channels and
// ranks_per_node give it, for the collectives, verify and simulate alike: the library's own
// request type for the choice (schedule/algorithm_choice.hpp), filled from Python's keywords.
#include "bindings.hpp"
#include "ringlab/schedule/algorithm_choice.hpp"

namespace ringlab::python {

using AlgorithmArgs = schedule::AlgorithmChoice;

void bindAlgorithmArgs(py::module_& module);

}  // namespace ringlab::python
