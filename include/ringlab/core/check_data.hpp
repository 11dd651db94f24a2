#pragma once
// Check data for `ringlab bench -c` and the tests: deterministic integer-valued inputs, small
// enough that their reduction over p ranks is exact in every datatype (products are powers of
// two), so the expected result has a closed form and a run is compared with it bit for bit.
#include <cstdint>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce_op.hpp"

namespace ringlab {

// The value rank `rank` contributes at global element index `index`.
double checkInputValue(DataType type, ReduceOp op, int rank, std::uint64_t index);

// The reduction over ranks 0..ranks-1 at `index`, exactly, before rounding to the datatype.
double checkExpectedValue(DataType type, ReduceOp op, int ranks, std::uint64_t index);

// Stores `value` into element `index` of `data` with the datatype's conversion (integers wrap
// modulo 2^bits, floats round to nearest even).
void storeValue(DataType type, void* data, std::uint64_t index, double value);

// Fills data[0..count) with this rank's inputs for global elements firstIndex...
void fillCheckInput(DataType type, ReduceOp op, int rank, void* data, std::uint64_t count,
                    std::uint64_t firstIndex = 0);

// Elements of data[0..count) (global elements firstIndex...) that differ bitwise from the
// expected reduction over `ranks` ranks.
std::uint64_t countWrong(DataType type, ReduceOp op, int ranks, const void* data,
                         std::uint64_t count, std::uint64_t firstIndex = 0);

}  // namespace ringlab
