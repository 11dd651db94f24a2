#pragma once
// The parts of ringlab._ringlab, one per file, each adding its classes and functions to the
// module; module.cpp calls them in order.
#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

namespace ringlab::python {

namespace py = pybind11;

// ringlab::Error as the ringlab.errors class of its code (errors.cpp).
void bindErrors(py::module_& module);
// Communicator, InprocWorld, connect, run_threads (communicator.cpp).
void bindCommunicator(py::module_& module);
// verify, predict, topology reports, simulate, plan, run records, GPU verdicts (analysis_*.cpp).
void bindModelAnalysis(py::module_& module);
void bindTopologyAnalysis(py::module_& module);
void bindPlanAnalysis(py::module_& module);
void bindGpuAnalysis(py::module_& module);
// DataType, ReduceOp, Collective, AlgorithmSpec, Schedule and their builders (typed_objects.cpp).
void bindTypedObjects(py::module_& module);
// register_algorithm and unregister_algorithm: algorithms built by a Python function
// (algorithm_registration.cpp).
void bindAlgorithmRegistration(py::module_& module);

// A JSON document of the library as Python dicts, lists, numbers and strings, through Python's
// json module: nlohmann writes the shortest text that reads back to the same double, so every
// number arrives exactly as the CLI's --json prints it.
py::object toPython(const nlohmann::json& json);
// The reverse, for documents a Python program hands in (a timeline, a run record).
nlohmann::json fromPython(const py::handle& object);

}  // namespace ringlab::python
