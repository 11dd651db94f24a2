#pragma once
// The backward pass as the bucket planner sees it: per gradient tensor, when it becomes ready;
// the backward's end; and the work around it that bounds an iteration (forward, optimiser step).
//
// Tensors are listed in the order their gradients become ready (backward order), which is the
// order buckets are formed and reduced in. Times are seconds from the backward's start.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"

namespace ringlab::plan {

struct GradTensor {
  std::string name;
  std::uint64_t count = 0;  // elements
  DataType dtype = DataType::Float32;
  double ready_s = 0;  // gradient ready, seconds from the backward's start
  // Position of the parameter in the model's parameter list (model.parameters()), when known; for
  // reference only: buckets follow ready order, as DDP's do after its first iteration.
  std::optional<std::size_t> paramIndex;

  std::uint64_t bytes() const { return count * dataTypeSize(dtype); }
};

struct Timeline {
  std::vector<GradTensor> tensors;  // in ready order
  double backwardEnd_s = 0;
  double forward_s = 0;        // forward pass before the backward (0 when not recorded)
  double optimizerStep_s = 0;  // optimiser step after the last bucket is reduced
  // Measured memory copy bandwidth (bytes/s) for the copy into and out of the bucket buffer;
  // 0 = not measured, copies not priced.
  double copyBytesPerSecond = 0;
  std::string source;  // where it came from, for messages

  std::uint64_t totalBytes() const;
};

// Throws InvalidArgument naming the record (source, tensor index and name) and the value: no
// tensors, an empty name, a zero element count, a negative or non-finite time, ready times out
// of order, a ready time after the backward's end, a duplicate name, a parameter index given for
// some tensors only or twice, mixed datatypes (buckets hold one datatype, as DDP's do).
void validate(const Timeline& timeline);

}  // namespace ringlab::plan
