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

void checkParts(std::uint32_t parts, std::uint32_t index) {
  if (parts == 0) throwInvalid("partition into 0 chunks: parts must be >= 1");
  if (index > parts) {
    throwInvalid("chunk index " + std::to_string(index) + " out of range for " +
                 std::to_string(parts) + " chunks");
  }
}

}  // namespace

ElementRange partitionChunk(std::uint64_t count, std::uint32_t parts, std::uint32_t index) {
  return partitionSpan(count, parts, index, index + 1);
}

ElementRange partitionSpan(std::uint64_t count, std::uint32_t parts, std::uint32_t first,
                           std::uint32_t last) {
  checkParts(parts, last);
  if (first > last) {
    throwInvalid("chunk span [" + std::to_string(first) + ", " + std::to_string(last) +
                 ") is reversed");
  }
  const std::uint64_t begin = chunkOffset(count, parts, first);
  return {begin, chunkOffset(count, parts, last) - begin};
}

}  // namespace ringlab
