// ringlab._ringlab: the bindings of libringlab for the Python package (python/ringlab), which
// wraps them in a Pythonic API. Nothing here computes: each function calls what the CLI calls.
#include "bindings.hpp"
#include "ringlab/version.hpp"

PYBIND11_MODULE(_ringlab, module) {
  module.doc() = "ringlab's C++ library; use the ringlab package, which wraps it";
  module.attr("__version__") = ringlab::version();
  ringlab::python::bindErrors(module);
  ringlab::python::bindCommunicator(module);
  ringlab::python::bindModelAnalysis(module);
  ringlab::python::bindTopologyAnalysis(module);
  ringlab::python::bindPlanAnalysis(module);
  ringlab::python::bindGpuAnalysis(module);
  ringlab::python::bindTypedObjects(module);
  ringlab::python::bindAlgorithmRegistration(module);
}
