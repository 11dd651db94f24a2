#include "ringlab/schedule/schedule.hpp"

#include <array>

#include "ringlab/core/enum_names.hpp"
#include "ringlab/core/partition.hpp"

namespace ringlab::schedule {

int blockSource(const Schedule& s, std::uint32_t b) {
  switch (s.collective) {
    case Collective::AllGather:
    case Collective::Broadcast:
    case Collective::AllToAll:
      return s.blockOwner[b];
    default:
      return -1;
  }
}

int blockDestination(const Schedule& s, std::uint32_t b) {
  switch (s.collective) {
    case Collective::ReduceScatter:
    case Collective::Reduce:
      return s.blockOwner[b];
    case Collective::AllToAll:
      return static_cast<int>(b % static_cast<std::uint32_t>(s.ranks));
    default:
      return -1;
  }
}

std::uint64_t spanElements(const Schedule& s, std::uint64_t count, std::uint32_t first,
                           std::uint32_t last) {
  if (s.collective != Collective::AllToAll)
    return partitionSpan(count, s.blocks, first, last).count;
  const auto p = static_cast<std::uint32_t>(s.ranks);
  std::uint64_t elements = 0;
  for (std::uint32_t b = first; b < last; ++b) elements += partitionChunk(count, p, b % p).count;
  return elements;
}

namespace {
constexpr std::array<EnumName<RecvMode>, 2> kRecvModeNames{{
    {RecvMode::Reduce, "reduce"},
    {RecvMode::Copy, "copy"},
}};
}  // namespace

const char* recvModeName(RecvMode mode) {
  return enumName(std::span{kRecvModeNames}, mode).data();
}

RecvMode parseRecvMode(std::string_view name, std::string_view what) {
  return parseEnum(std::span{kRecvModeNames}, name, what);
}

}  // namespace ringlab::schedule
