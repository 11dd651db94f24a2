// numpy arrays through the buffer protocol, torch tensors through their data pointer, dtype and
// layout (torch implements no buffer protocol, and bfloat16 exists only in torch).
#include "buffers.hpp"

#include <string_view>

#include "ringlab/core/error.hpp"

namespace ringlab::python {
namespace {

std::string validTypes() {
  std::string names;
  for (DataType type : kAllDataTypes)
    names += std::string(names.empty() ? "" : " ") + dataTypeName(type);
  return names;
}

[[noreturn]] void throwBadType(const std::string& role, const std::string& what) {
  throwInvalid(role + ": dtype " + what + " is not one ringlab reduces; valid: " + validTypes());
}

// A buffer-protocol format ("f", "<i", "=Q", ...) and item size as a DataType.
DataType typeOfFormat(const std::string& role, std::string format, std::size_t itemSize) {
  if (!format.empty() && (format[0] == '@' || format[0] == '=' || format[0] == '<')) {
    format.erase(0, 1);
  }
  const std::string given = "'" + format + "' (" + std::to_string(itemSize) + " bytes)";
  if (format.size() != 1) throwBadType(role, given);
  const char code = format[0];
  const bool isSigned = std::string_view("bhilq").find(code) != std::string_view::npos;
  const bool isUnsigned = std::string_view("BHILQ").find(code) != std::string_view::npos;
  const bool isFloat = std::string_view("efd").find(code) != std::string_view::npos;
  for (DataType type : kAllDataTypes) {
    if (dataTypeSize(type) != itemSize || type == DataType::Bfloat16) continue;
    const std::string_view name = dataTypeName(type);
    if ((isFloat && isFloating(type)) || (isUnsigned && name.starts_with("uint")) ||
        (isSigned && name.starts_with("int"))) {
      return type;
    }
  }
  throwBadType(role, given);
}

bool isTorchTensor(const py::handle& object) {
  const py::dict modules = py::module_::import("sys").attr("modules");
  if (!modules.contains("torch")) return false;
  return py::isinstance(object, modules["torch"].attr("Tensor"));
}

BufferView viewTensor(const py::handle& tensor, const std::string& role) {
  const std::string device = py::str(tensor.attr("device"));
  const std::string dtype = py::str(tensor.attr("dtype"));  // "torch.float32"
  const std::string name = dtype.substr(dtype.find('.') + 1);
  if (device != "cpu") {
    throwInvalid(role + ": a tensor on " + device + "; ringlab reduces CPU tensors (.cpu())");
  }
  if (!tensor.attr("is_contiguous")().cast<bool>()) {
    throwInvalid(role + ": a non-contiguous " + name +
                 " tensor; ringlab needs contiguous memory (.contiguous())");
  }
  DataType type{};
  try {
    type = parseDataType(name);
  } catch (const Error&) {
    throwBadType(role, name);
  }
  BufferView view;
  view.data = reinterpret_cast<std::byte*>(tensor.attr("data_ptr")().cast<std::uintptr_t>());
  view.count = tensor.attr("numel")().cast<std::uint64_t>();
  view.type = type;
  view.description = name + "[" + std::to_string(view.count) + "] tensor";
  return view;
}

bool cContiguous(const py::buffer_info& info) {
  py::ssize_t stride = info.itemsize;
  for (py::ssize_t axis = info.ndim - 1; axis >= 0; --axis) {
    if (info.shape[axis] > 1 && info.strides[axis] != stride) return false;
    stride *= info.shape[axis];
  }
  return true;
}

}  // namespace

BufferView viewBuffer(const py::handle& object, const std::string& role, bool writable) {
  if (isTorchTensor(object)) return viewTensor(object, role);
  if (!PyObject_CheckBuffer(object.ptr())) {
    throwInvalid(role + ": a " + std::string(py::str(py::type::of(object).attr("__name__"))) +
                 "; ringlab takes numpy arrays (or other buffers) and torch CPU tensors");
  }
  BufferView view;
  view.exported = py::reinterpret_borrow<py::buffer>(object).request();
  const py::buffer_info& info = *view.exported;
  try {
    view.type = typeOfFormat(role, info.format, static_cast<std::size_t>(info.itemsize));
  } catch (const Error&) {
    // numpy's name for it ("int16", "bool") says more than the buffer format's letter.
    if (py::hasattr(object, "dtype")) throwBadType(role, py::str(object.attr("dtype")));
    throw;
  }
  view.count = static_cast<std::uint64_t>(info.size);
  view.data = static_cast<std::byte*>(info.ptr);
  view.description =
      std::string(dataTypeName(view.type)) + "[" + std::to_string(view.count) + "] array";
  if (!cContiguous(info)) {
    throwInvalid(role + ": a non-contiguous " + view.description +
                 "; ringlab needs C-contiguous memory (numpy.ascontiguousarray)");
  }
  if (writable && info.readonly) {
    // A broadcast's buffer is its only one; the other collectives take a separate out=.
    const std::string otherwise = role == "buffer" ? "" : ", or out=";
    throwInvalid(role + ": a read-only " + view.description +
                 "; the result is written into it (pass a writable array" + otherwise + ")");
  }
  return view;
}

}  // namespace ringlab::python
