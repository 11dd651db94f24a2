// Algorithms written in Python: an entry of the library's registry (model/registry.hpp) whose
// schedule builder calls a Python function. The library verifies every schedule it builds, so a
// Python algorithm is held to the same proof as a built-in before anything runs it, and verify,
// the model (which prices it by walking its schedule), `auto`, the simulator and this module's
// communicators then take it like one.
#include <pybind11/stl.h>

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "ringlab/core/enum_names.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/model/registry.hpp"

namespace ringlab::python {
namespace {

// The builder outlives this call in the registry, which keeps every table it has published for the
// life of the process: the function is released with the GIL held, or not at all once the
// interpreter has finalized (at exit), when nothing Python can be touched.
std::shared_ptr<py::object> keep(py::object build) {
  return {new py::object(std::move(build)), [](py::object* f) {
            if (!Py_IsInitialized()) return;
            py::gil_scoped_acquire gil;
            delete f;
          }};
}

std::string typeName(const py::handle& object) {
  return py::str(py::type::of(object).attr("__name__"));
}

// Rank threads build schedules with the GIL released: the call takes it.
model::ScheduleBuilder pythonBuilder(std::shared_ptr<py::object> build, std::string name) {
  return [build = std::move(build), name = std::move(name)](Collective collective, int ranks,
                                                            const schedule::AlgorithmSpec& spec) {
    py::gil_scoped_acquire gil;
    const py::object built = (*build)(collective, ranks, spec);
    if (!py::isinstance<schedule::Schedule>(built)) {
      throwInvalid("algorithm '" + name + "': its build function returned " + typeName(built) +
                   ", not a ringlab.Schedule");
    }
    return built.cast<schedule::Schedule>();
  };
}

// The spec fields an algorithm can read, by their keyword names.
constexpr std::array<EnumName<model::SpecField>, 3> kSpecFieldNames{{
    {model::kRingOrderField, "ring_order"},
    {model::kChannelsField, "channels"},
    {model::kRanksPerNodeField, "ranks_per_node"},
}};

unsigned specFieldsNamed(const std::vector<std::string>& reads) {
  unsigned fields = 0;
  for (const std::string& field : reads) {
    const std::optional<model::SpecField> named = findEnum(std::span{kSpecFieldNames}, field);
    if (!named) {
      throwInvalid("reads: '" + field + "' is not a field an algorithm can read; valid are " +
                   enumNameList(std::span{kSpecFieldNames}));
    }
    fields |= *named;
  }
  return fields;
}

void registerPythonAlgorithm(const std::string& name, py::object build,
                             const std::vector<Collective>& collectives, int minRanks,
                             const std::vector<std::string>& reads, bool candidate) {
  if (!PyCallable_Check(build.ptr())) {
    throwInvalid("build: " + typeName(build) +
                 " is not callable; give a function build(collective, ranks, spec) that returns "
                 "a ringlab.Schedule");
  }
  if (collectives.empty()) throwInvalid("collectives: give at least one collective");
  if (minRanks < 1) throwInvalid("min_ranks " + std::to_string(minRanks) + ": give 1 or more");
  model::Algorithm algorithm;
  algorithm.name = name;
  algorithm.specFields = specFieldsNamed(reads);
  algorithm.collectives = 0;
  for (Collective collective : collectives)
    algorithm.collectives |= model::collectiveBit(collective);
  algorithm.build = pythonBuilder(keep(std::move(build)), name);
  algorithm.minRanks = minRanks;
  algorithm.candidate = candidate;
  model::registerAlgorithm(std::move(algorithm));
}

}  // namespace

void bindAlgorithmRegistration(py::module_& module) {
  module.def("register_algorithm", &registerPythonAlgorithm, py::arg("name"), py::arg("build"),
             py::arg("collectives"), py::arg("min_ranks"), py::arg("reads"), py::arg("candidate"));
  module.def("unregister_algorithm", &model::unregisterAlgorithm, py::arg("name"));
}

}  // namespace ringlab::python
