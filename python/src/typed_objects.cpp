// Typed objects beside the dict-returning helpers: the datatype, reduction op and collective
// enums (named as the library names them), an algorithm spec and a schedule, read-only, as the
// library holds them. A schedule, its steps and transfers can also be built, for a Python
// algorithm's builder (algorithm_registration.cpp).
#include <pybind11/operators.h>
#include <pybind11/stl.h>

#include "algorithm_args.hpp"
#include "bindings.hpp"
#include "ringlab/core/collective.hpp"
#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce_op.hpp"
#include "ringlab/model/registry.hpp"

namespace ringlab::python {
namespace {

// Each value under the library's own name ("float32", "premul_sum", "reduce_scatter").
template <typename Enum, typename Values, typename Name>
void bindEnum(py::module_& module, const char* pythonName, const Values& values, Name name) {
  py::enum_<Enum> e(module, pythonName);
  for (Enum value : values) e.value(name(value), value);
}

}  // namespace

void bindTypedObjects(py::module_& module) {
  bindEnum<DataType>(module, "DataType", kAllDataTypes, dataTypeName);
  bindEnum<ReduceOp>(
      module, "ReduceOp",
      std::initializer_list<ReduceOp>{ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max,
                                      ReduceOp::Avg, ReduceOp::PreMulSum},
      reduceOpName);
  bindEnum<Collective>(module, "Collective", kAllCollectives, collectiveName);
  module.def("data_type_size", &dataTypeSize, py::arg("dtype"));
  module.def("parse_collective", &parseCollective, py::arg("name"));

  py::class_<schedule::AlgorithmSpec>(module, "AlgorithmSpec",
                                      "an algorithm resolved for p ranks (AlgorithmArgs.spec)")
      .def_readonly("name", &schedule::AlgorithmSpec::name)
      .def_readonly("ring_order", &schedule::AlgorithmSpec::ringOrder)
      .def_readonly("ownership_offset", &schedule::AlgorithmSpec::ownershipOffset)
      .def_readonly("channels", &schedule::AlgorithmSpec::channels)
      .def_readonly("channel_orders", &schedule::AlgorithmSpec::channelOrders)
      .def_readonly("ranks_per_node", &schedule::AlgorithmSpec::ranksPerNode)
      .def_readonly("root", &schedule::AlgorithmSpec::root)
      .def(py::self == py::self);
  module.def(
      "algorithm_spec",
      [](int ranks, const AlgorithmArgs& algorithm) { return algorithm.spec(ranks); },
      py::arg("ranks"), py::arg("algorithm"));

  // Constructible, so that a Python algorithm's builder (register_algorithm) can return one.
  py::class_<schedule::Transfer>(module, "Transfer")
      .def(py::init([](int src, int dst, std::uint32_t firstBlock, std::uint32_t lastBlock,
                       const std::string& mode) {
             return schedule::Transfer{src, dst, firstBlock, lastBlock,
                                       schedule::parseRecvMode(mode, "transfer mode")};
           }),
           py::arg("src"), py::arg("dst"), py::arg("first_block"), py::arg("last_block"),
           py::arg("mode") = "copy")
      .def_readonly("src", &schedule::Transfer::src)
      .def_readonly("dst", &schedule::Transfer::dst)
      .def_readonly("first_block", &schedule::Transfer::firstBlock)
      .def_readonly("last_block", &schedule::Transfer::lastBlock)
      .def_property_readonly(
          "mode", [](const schedule::Transfer& t) { return schedule::recvModeName(t.mode); });
  py::class_<schedule::Step>(module, "Step")
      .def(py::init([](std::vector<schedule::Transfer> transfers, std::string phase) {
             return schedule::Step{std::move(phase), std::move(transfers)};
           }),
           py::arg("transfers"), py::arg("phase") = "")
      .def_readonly("phase", &schedule::Step::phase)
      .def_readonly("transfers", &schedule::Step::transfers);
  py::class_<schedule::Schedule>(module, "Schedule", "a verified schedule: steps of transfers")
      .def(py::init([](Collective collective, int ranks, std::uint32_t blocks,
                       std::vector<schedule::Step> steps, std::vector<int> blockOwner,
                       std::vector<int> ringOrder) {
             schedule::Schedule s;
             s.collective = collective;
             s.ranks = ranks;
             s.blocks = blocks;
             s.steps = std::move(steps);
             s.blockOwner = std::move(blockOwner);
             s.ringOrder = std::move(ringOrder);
             return s;
           }),
           py::arg("collective"), py::arg("ranks"), py::arg("blocks"), py::arg("steps"),
           py::arg("block_owner") = std::vector<int>{}, py::arg("ring_order") = std::vector<int>{})
      .def_readonly("algorithm", &schedule::Schedule::algorithm)
      .def_readonly("collective", &schedule::Schedule::collective)
      .def_readonly("ranks", &schedule::Schedule::ranks)
      .def_readonly("blocks", &schedule::Schedule::blocks)
      .def_readonly("ring_order", &schedule::Schedule::ringOrder)
      .def_readonly("block_owner", &schedule::Schedule::blockOwner)
      .def_readonly("steps", &schedule::Schedule::steps);
  module.def("build_schedule", &model::buildSchedule, py::arg("collective"), py::arg("ranks"),
             py::arg("spec"));
}

}  // namespace ringlab::python
