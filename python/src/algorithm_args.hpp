#pragma once
// An algorithm as the CLI's --algo, --ring-order | --ring-stride, --channels and --ranks-per-node
// give it, for the collectives, verify and simulate alike.
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "ringlab/schedule/algorithms.hpp"

namespace ringlab::python {

struct AlgorithmArgs {
  std::string algo = "ring";
  std::optional<std::vector<int>> ringOrder;
  std::optional<int> ringStride;
  int channels = 1;
  int ranksPerNode = 0;

  // The spec for p ranks; model::buildSchedule then rejects a field the algorithm does not read.
  // Throws InvalidArgument for an order that is not a permutation, or both order and stride.
  schedule::AlgorithmSpec spec(int ranks) const;
};

void bindAlgorithmArgs(py::module_& module);

}  // namespace ringlab::python
