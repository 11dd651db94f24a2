#include "ringlab/schedule/schedule.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/core/partition.hpp"

namespace ringlab::schedule {

const char* collectiveName(Collective collective) {
  switch (collective) {
    case Collective::AllReduce:
      return "allreduce";
    case Collective::ReduceScatter:
      return "reduce_scatter";
    case Collective::AllGather:
      return "allgather";
    case Collective::Reduce:
      return "reduce";
    case Collective::Broadcast:
      return "broadcast";
    case Collective::AllToAll:
      return "alltoall";
  }
  return "unknown";
}

Collective parseCollective(const std::string& name) {
  std::string valid;
  for (Collective c : kAllCollectives) {
    if (name == collectiveName(c)) return c;
    valid += (valid.empty() ? "" : ", ") + std::string(collectiveName(c));
  }
  throwInvalid("unknown collective '" + name + "': valid are " + valid);
}

bool hasRoot(Collective collective) {
  return collective == Collective::Reduce || collective == Collective::Broadcast;
}

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

const char* recvModeName(RecvMode mode) {
  return mode == RecvMode::Reduce ? "reduce" : "copy";
}

}  // namespace ringlab::schedule
