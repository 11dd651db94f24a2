#include "ringlab/schedule/volume.hpp"

#include <algorithm>

#include "ringlab/core/enum_names.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/partition.hpp"

namespace ringlab::schedule {

namespace {

constexpr EnumName<VolumeConvention> kVolumeConventionNames[] = {
    {VolumeConvention::Send, "send"},
    {VolumeConvention::SendRecv, "send+recv"},
    {VolumeConvention::LinkHop, "link-hop"}};

}  // namespace

const char* volumeConventionName(VolumeConvention convention) {
  return enumName(std::span(kVolumeConventionNames), convention).data();
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

namespace {

[[noreturn]] void tooLarge(std::uint64_t count, DataType type) {
  throwInvalid("volume of " + std::to_string(count) + " " + dataTypeName(type) +
               " elements: a byte count passes 2^64 - 1 = " + std::to_string(~std::uint64_t{0}) +
               "; give a smaller size");
}

// a + b, refused when it wraps: a byte count past 2^64 must not print as a small one.
std::uint64_t add(std::uint64_t a, std::uint64_t b, std::uint64_t count, DataType type) {
  std::uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) tooLarge(count, type);
  return sum;
}

}  // namespace

VolumeReport countVolume(const Schedule& schedule, std::uint64_t count, DataType type) {
  VolumeReport report;
  report.perRank.resize(schedule.ranks);
  report.steps = schedule.steps.size();
  const std::uint64_t elementBytes = dataTypeSize(type);
  std::uint64_t messageBytes = 0;
  if (__builtin_mul_overflow(count, elementBytes, &messageBytes)) tooLarge(count, type);
  for (const Step& step : schedule.steps) {
    for (const Transfer& t : step.transfers) {
      const std::uint64_t bytes =
          spanElements(schedule, count, t.firstBlock, t.lastBlock) * elementBytes;
      RankVolume& src = report.perRank[t.src];
      RankVolume& dst = report.perRank[t.dst];
      src.sentBytes = add(src.sentBytes, bytes, count, type);
      dst.receivedBytes = add(dst.receivedBytes, bytes, count, type);
      if (t.mode == RecvMode::Reduce) dst.reducedBytes += bytes;  // <= receivedBytes: no overflow
    }
  }
  for (const RankVolume& v : report.perRank) {
    report.totalSentBytes = add(report.totalSentBytes, v.sentBytes, count, type);
    report.maxSentBytes = std::max(report.maxSentBytes, v.sentBytes);
    report.maxSendRecvBytes =
        std::max(report.maxSendRecvBytes, add(v.sentBytes, v.receivedBytes, count, type));
  }
  return report;
}

double ringAllReduceSendBytes(int ranks, double bytes) {
  return 2.0 * (ranks - 1) * bytes / ranks;
}

}  // namespace ringlab::schedule
