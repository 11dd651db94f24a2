// ringlab._torch_backend: the C++ side of the "ringlab" torch.distributed backend. Python's
// ringlab.torch registers `create` with torch.distributed.Backend.register_backend; torch calls
// it with the group's store, rank, size and timeout and keeps the process group it returns.
// As torch_ucc and the oneCCL bindings do for torch 1.13, the class derives from c10d's
// ProcessGroup binding (torch.distributed must be imported first so that pybind11 knows it), so
// the object torch receives is a ProcessGroup whose virtual collectives are ours.
#include <pybind11/chrono.h>
#include <pybind11/stl.h>
#include <torch/python.h>

#include <torch/csrc/Dtype.h>

#include <cstdint>
#include <optional>

#include "collective_algorithm.hpp"
#include "process_group.hpp"
#include "ringlab/job/transports.hpp"
#include "shared_tensors.hpp"

namespace py = pybind11;
using ringlab::torch_backend::BackendOptions;
using ringlab::torch_backend::emptyShared;
using ringlab::torch_backend::moveToSharedMemory;
using ringlab::torch_backend::ProcessGroupRinglab;

PYBIND11_MODULE(_torch_backend, m) {
  m.doc() = "The ringlab process group for torch.distributed (used by ringlab.torch)";
  py::module_::import("torch.distributed");

  py::class_<ProcessGroupRinglab, c10d::ProcessGroup, c10::intrusive_ptr<ProcessGroupRinglab>>(
      m, "ProcessGroupRinglab")
      .def_property_readonly("transport", &ProcessGroupRinglab::transportName,
                             "the transport the group runs on, a name in ringlab's transport "
                             "table")
      .def_property_readonly("algorithm", &ProcessGroupRinglab::algorithm,
                             "the AllReduce algorithm: a registry name, or auto")
      .def_property_readonly(
          "single_copy_bytes",
          [](const ProcessGroupRinglab& group) -> std::optional<std::uint64_t> {
            const std::uint64_t bytes = group.singleCopyBytes();
            if (bytes == UINT64_MAX) return std::nullopt;
            return bytes;
          },
          "messages of shared tensors (ringlab.torch.empty) at least this large go single copy; "
          "None where none do (tcp, or a peer that may not map this rank's memory)");

  m.def(
      "empty_shared",
      [](const ProcessGroupRinglab& group, const std::vector<std::int64_t>& sizes,
         const py::handle& dtype) {
        if (!THPDtype_Check(dtype.ptr())) {
          throw py::type_error("ringlab: empty: dtype " + py::repr(dtype).cast<std::string>() +
                               " is not a torch.dtype");
        }
        return emptyShared(group.sharedMemory(), sizes,
                           reinterpret_cast<THPDtype*>(dtype.ptr())->scalar_type);
      },
      py::arg("group"), py::arg("sizes"), py::arg("dtype"),
      "An uninitialised CPU tensor in the group's shared memory (ringlab.torch.empty)");

  m.def(
      "move_to_shared_memory",
      [](const ProcessGroupRinglab& group, const at::Tensor& tensor) {
        return moveToSharedMemory(group.sharedMemory(), tensor);
      },
      py::arg("group"), py::arg("tensor"),
      "Moves the tensor's storage into the group's shared memory, in place (once: a storage "
      "already there stays); whether it lies there afterwards (ringlab.torch.single_copy_hook)");

  m.def("check_algorithm", &ringlab::torch_backend::checkAllReduceAlgorithm, py::arg("name"),
        py::arg("ranks"),
        "Raises InvalidArgumentError unless `name` is auto or an AllReduce algorithm that runs "
        "at p = `ranks` from its name alone");

  m.def("transports", &ringlab::job::groupTransportNames,
        "What a group may ask for: auto, then the transport table's transports whose ranks are "
        "launched processes");

  m.def(
      "create",
      [](const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
         std::chrono::milliseconds timeout, std::string transport, std::string algorithm,
         std::string bind) {
        BackendOptions options{std::move(transport), std::move(algorithm), std::move(bind)};
        return c10::make_intrusive<ProcessGroupRinglab>(store, rank, size, timeout, options);
      },
      py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("timeout"),
      py::arg("transport") = "auto", py::arg("algorithm") = "auto", py::arg("bind") = "",
      py::call_guard<py::gil_scoped_release>(),
      "Connects this rank of a process group (collective over the group)");
}
