#include "ringlab/core/partition.hpp"

#include <string>

#include "ringlab/core/error.hpp"

namespace ringlab {
namespace {

// Offset of chunk `index`: the first `extra` chunks are one element larger.
std::uint64_t chunkOffset(std::uint64_t count, std::uint32_t parts, std::uint32_t index) {
  const std::uint64_t base = count / parts;
  const std::uint64_t extra = count % parts;
  return index * base + (index < extra ? index : extra);
}

void checkSpan(std::uint32_t parts, std::uint32_t first, std::uint32_t last) {
  if (parts == 0) throwInvalid("partition into 0 chunks: parts must be >= 1");
  if (last > parts) {
    throwInvalid("chunk span [" + std::to_string(first) + ", " + std::to_string(last) +
                 ") out of range for " + std::to_string(parts) + " chunks 0.." +
                 std::to_string(parts - 1));
  }
}

}  // namespace

ElementRange partitionChunk(std::uint64_t count, std::uint32_t parts, std::uint32_t index) {
  return partitionSpan(count, parts, index, index + 1);
}

ElementRange partitionSpan(std::uint64_t count, std::uint32_t parts, std::uint32_t first,
                           std::uint32_t last) {
  checkSpan(parts, first, last);
  if (first > last) {
    throwInvalid("chunk span [" + std::to_string(first) + ", " + std::to_string(last) +
                 ") is reversed");
  }
  const std::uint64_t begin = chunkOffset(count, parts, first);
  return {begin, chunkOffset(count, parts, last) - begin};
}

}  // namespace ringlab
