#include "algorithm_args.hpp"

#include <pybind11/stl.h>

#include "ringlab/core/error.hpp"

namespace ringlab::python {

void bindAlgorithmArgs(py::module_& module) {
  py::class_<AlgorithmArgs>(module, "AlgorithmArgs",
                            "algo, ring_order | ring_stride, channels, ranks_per_node")
      .def(py::init([](std::string algo, std::optional<std::vector<int>> ringOrder,
                       std::optional<int> ringStride, int channels, int ranksPerNode) {
             // The library refuses both too; here it is said in the keywords' words.
             if (ringOrder && ringStride) throwInvalid("ring_order and ring_stride: give one");
             return AlgorithmArgs{std::move(algo), std::move(ringOrder), ringStride, channels,
                                  ranksPerNode};
           }),
           py::arg("algo") = "ring", py::arg("ring_order") = py::none(),
           py::arg("ring_stride") = py::none(), py::arg("channels") = 1,
           py::arg("ranks_per_node") = 0);
}

}  // namespace ringlab::python
