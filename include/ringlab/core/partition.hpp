#pragma once
// Partition of `count` datatype elements into `parts` contiguous chunks: deterministic and
// balanced (the first count % parts chunks hold one element more), empty chunks when
// count < parts. Never splits an element: all offsets and sizes are in elements.
#include <cstdint>

namespace ringlab {

struct ElementRange {
  std::uint64_t offset = 0;  // first element
  std::uint64_t count = 0;   // number of elements
  std::uint64_t end() const { return offset + count; }
  bool operator==(const ElementRange&) const = default;
};

// Chunk `index` (0 <= index < parts) of a `count`-element buffer split into `parts` chunks.
ElementRange partitionChunk(std::uint64_t count, std::uint32_t parts, std::uint32_t index);

// The element range spanned by chunks [first, last) (contiguous by construction).
ElementRange partitionSpan(std::uint64_t count, std::uint32_t parts, std::uint32_t first,
                           std::uint32_t last);

// Elements per segment when a transfer is cut into segments of `segmentBytes`: rounded down to
// whole elements, at least one. The executor sends each segment as one message, and the roofline
// counts the transport's copies per message (a transport may move large messages differently).
inline std::uint64_t segmentElements(std::uint64_t segmentBytes, std::uint64_t elementBytes) {
  const std::uint64_t whole = segmentBytes / elementBytes;
  return whole > 0 ? whole : 1;
}

// Bytes of an `elements`-element transfer that travel in messages of at least `fromBytes` when the
// executor cuts it into segments of `segmentBytes` (its whole segments and its tail, each judged
// by its own size): the part a transport moves its large-message way.
inline std::uint64_t bytesInMessagesFrom(std::uint64_t elements, std::uint64_t elementBytes,
                                         std::uint64_t segmentBytes, std::uint64_t fromBytes) {
  const std::uint64_t perSegment = segmentElements(segmentBytes, elementBytes);
  const std::uint64_t whole = elements / perSegment, tail = elements % perSegment;
  std::uint64_t bytes = 0;
  if (perSegment * elementBytes >= fromBytes) bytes += whole * perSegment * elementBytes;
  if (tail * elementBytes >= fromBytes) bytes += tail * elementBytes;
  return bytes;
}

}  // namespace ringlab
