#include "algorithm_args.hpp"

#include <pybind11/stl.h>

#include "ringlab/core/error.hpp"
#include "ringlab/schedule/ring_order.hpp"

namespace ringlab::python {

schedule::AlgorithmSpec AlgorithmArgs::spec(int ranks) const {
  if (ringOrder && ringStride) throwInvalid("ring_order and ring_stride: give one");
  schedule::AlgorithmSpec spec;
  spec.name = algo;
  if (ringOrder) spec.ringOrder = schedule::RingOrder::fromList(*ringOrder, ranks).ranks();
  if (ringStride) spec.ringOrder = schedule::RingOrder::fromStride(ranks, *ringStride).ranks();
  spec.channels = channels;
  spec.ranksPerNode = ranksPerNode;
  return spec;
}

void bindAlgorithmArgs(py::module_& module) {
  py::class_<AlgorithmArgs>(module, "AlgorithmArgs",
                            "--algo, --ring-order|--ring-stride, --channels, --ranks-per-node")
      .def(py::init([](std::string algo, std::optional<std::vector<int>> ringOrder,
                       std::optional<int> ringStride, int channels, int ranksPerNode) {
             return AlgorithmArgs{std::move(algo), std::move(ringOrder), ringStride, channels,
                                  ranksPerNode};
           }),
           py::arg("algo") = "ring", py::arg("ring_order") = py::none(),
           py::arg("ring_stride") = py::none(), py::arg("channels") = 1,
           py::arg("ranks_per_node") = 0);
}

}  // namespace ringlab::python
