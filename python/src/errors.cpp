// ringlab::Error raised in Python as the class of its code (python/ringlab/errors.py), with
// ringlab's one-line message and the code as .code; JSON conversions shared by the analysis parts.
#include <exception>

#include "bindings.hpp"
#include "ringlab/core/error.hpp"

namespace ringlab::python {

void bindErrors(py::module_& module) {
  py::enum_<ErrorCode>(module, "ErrorCode", "ringlab::ErrorCode: what kind of failure")
      .value("InvalidArgument", ErrorCode::InvalidArgument)
      .value("Mismatch", ErrorCode::Mismatch)
      .value("Timeout", ErrorCode::Timeout)
      .value("PeerLost", ErrorCode::PeerLost)
      .value("Transport", ErrorCode::Transport)
      .value("Internal", ErrorCode::Internal)
      .value("Unreliable", ErrorCode::Unreliable);
  // Translators run with the GIL held. The classes live in Python, so that users can subclass and
  // document them; they are looked up when the first error is raised (after the package loaded).
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const Error& e) {
      const py::object error =
          py::module_::import("ringlab.errors").attr("from_code")(e.code(), e.what());
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    }
  });
}

py::object toPython(const nlohmann::json& json) {
  return py::module_::import("json").attr("loads")(json.dump());
}

nlohmann::json fromPython(const py::handle& object) {
  const std::string text = py::str(py::module_::import("json").attr("dumps")(object));
  return nlohmann::json::parse(text);
}

}  // namespace ringlab::python
