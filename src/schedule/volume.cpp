#include "ringlab/schedule/volume.hpp"

#include <algorithm>

#include "ringlab/core/error.hpp"
#include "ringlab/core/partition.hpp"

namespace ringlab::schedule {

const char* volumeConventionName(VolumeConvention convention) {
  switch (convention) {
    case VolumeConvention::Send:
      return "send";
    case VolumeConvention::SendRecv:
      return "send+recv";
    case VolumeConvention::LinkHop:
      return "link-hop";
  }
  return "unknown";
}

std::uint64_t RankVolume::inConvention(VolumeConvention convention) const {
  switch (convention) {
    case VolumeConvention::Send:
      return sentBytes;
    case VolumeConvention::SendRecv:
      return sentBytes + receivedBytes;
    case VolumeConvention::LinkHop:
      break;
  }
  throwInvalid("link-hop volume needs a topology; a rank's own volume is send or send+recv");
}

VolumeReport countVolume(const Schedule& schedule, std::uint64_t count, DataType type) {
  VolumeReport report;
  report.perRank.resize(schedule.ranks);
  report.steps = schedule.steps.size();
  const std::uint64_t elementBytes = dataTypeSize(type);
  for (const Step& step : schedule.steps) {
    for (const Transfer& t : step.transfers) {
      const std::uint64_t bytes =
          partitionSpan(count, schedule.blocks, t.firstBlock, t.lastBlock).count * elementBytes;
      report.perRank[t.src].sentBytes += bytes;
      report.perRank[t.dst].receivedBytes += bytes;
    }
  }
  for (const RankVolume& v : report.perRank) {
    report.totalSentBytes += v.sentBytes;
    report.maxSentBytes = std::max(report.maxSentBytes, v.sentBytes);
    report.maxSendRecvBytes = std::max(report.maxSendRecvBytes, v.sentBytes + v.receivedBytes);
  }
  return report;
}

double ringAllReduceSendBytes(int ranks, double bytes) {
  return 2.0 * (ranks - 1) * bytes / ranks;
}

}  // namespace ringlab::schedule
