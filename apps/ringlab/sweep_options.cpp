#include "sweep_options.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"

namespace ringlab::cli {

void SweepOptions::add(CLI::App& app, Fields fields) {
  app.add_option("-b,--minbytes", minBytes, "smallest size (8, 4K, 64KiB, 1M, 2G: powers of 1024)");
  app.add_option("-e,--maxbytes", maxBytes, "largest size");
  if (fields.stepFactor) {
    app.add_option("-f,--stepfactor", stepFactor, "multiply the size by this each step");
  }
  if (fields.dtype) {
    app.add_option("-d,--datatype", dtype,
                   "int8 uint8 int32 uint32 int64 uint64 float16|half bfloat16 float32|float "
                   "float64|double");
  }
  if (fields.op) app.add_option("-o,--op", op, "sum prod min max avg");
}

std::uint64_t SweepOptions::min() const {
  return parseSize(minBytes);
}
std::uint64_t SweepOptions::max() const {
  return parseSize(maxBytes);
}

std::uint64_t SweepOptions::factor() const {
  if (stepFactor < 2)
    throwInvalid("-f/--stepfactor " + std::to_string(stepFactor) + ": must be >= 2");
  return static_cast<std::uint64_t>(stepFactor);
}

DataType SweepOptions::type() const {
  return parseDataType(dtype);
}
ReduceOp SweepOptions::reduceOp() const {
  return parseReduceOp(op);
}

}  // namespace ringlab::cli
