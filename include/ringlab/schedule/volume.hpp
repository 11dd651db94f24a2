#pragma once
// Volume accounting from the schedule itself, each figure labelled with its convention:
//   send       bytes a rank sends;
//   send+recv  bytes a rank sends plus bytes it receives (both directions at that rank);
//   link-hop   bytes times physical links crossed (needs a topology; see topo/).
// For the ring AllReduce with count divisible by p, send = 2(p-1)n/p per rank exactly.
#include <cstdint>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

enum class VolumeConvention { Send, SendRecv, LinkHop };
const char* volumeConventionName(VolumeConvention convention);  // "send", "send+recv", "link-hop"

struct RankVolume {
  std::uint64_t sentBytes = 0;
  std::uint64_t receivedBytes = 0;
  std::uint64_t reducedBytes = 0;  // of receivedBytes, those the rank reduces (RecvMode::Reduce)
  std::uint64_t inConvention(VolumeConvention convention) const;  // Send or SendRecv
};

struct VolumeReport {
  std::vector<RankVolume> perRank;
  std::uint64_t totalSentBytes = 0;    // sum over ranks, send convention
  std::uint64_t maxSentBytes = 0;      // the busiest rank, send convention
  std::uint64_t maxSendRecvBytes = 0;  // the busiest rank, send+recv convention
  std::uint64_t steps = 0;
};

// Bytes moved by `schedule` on a buffer of `count` elements of `type`.
VolumeReport countVolume(const Schedule& schedule, std::uint64_t count, DataType type);

// The closed form for the ring AllReduce, send convention, per rank: 2(p-1)n/p for n bytes.
double ringAllReduceSendBytes(int ranks, double bytes);

}  // namespace ringlab::schedule
