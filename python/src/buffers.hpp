#pragma once
// The memory of a numpy array (or anything with the buffer protocol) or a torch CPU tensor, as
// the pointer, element count and DataType a collective takes: no copy, the collective reads and
// writes the object's own memory.
#include <cstdint>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "ringlab/core/dtype.hpp"

namespace ringlab::python {

struct BufferView {
  std::byte* data = nullptr;
  std::uint64_t count = 0;
  DataType type{};
  std::string description;  // "float32[8] numpy array", for messages
  // Holds the buffer export (numpy) while the collective runs; released with the GIL held.
  std::optional<py::buffer_info> exported;

  std::uint64_t bytes() const { return count * dataTypeSize(type); }
};

// Throws InvalidArgument naming `role` ("send", "out") when the object is not a C-contiguous CPU
// array of a ringlab dtype, or is read-only and `writable` is asked for.
BufferView viewBuffer(const py::handle& object, const std::string& role, bool writable);

}  // namespace ringlab::python
