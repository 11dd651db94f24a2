#include "ringlab/model/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ringlab/core/error.hpp"
#include "ringlab/core/partition.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab::model {

namespace {

double perSecond(double bytes, double rate, const char* name) {
  if (bytes == 0) return 0;
  if (!std::isfinite(rate) || rate <= 0)
    throwInvalid(std::string("roofline: ") + name + " = " + std::to_string(rate) +
                 " bytes/s: must be a finite rate > 0");
  return bytes / rate;
}

// One rank's memory passes over shared memory, in bytes.
struct MemoryPasses {
  double slotIn = 0;                       // its copies of sent messages into slots
  double slotCopyOut = 0, slotReduce = 0;  // its receives out of slots
  double copy = 0, reduce = 0;             // its receives straight from the sender's buffer
};

// Bytes of an `elements`-element block that go through the slots: the messages the executor cuts
// it into (segments) that are smaller than the transport's single-copy size.
double slotBytesOf(std::uint64_t elements, std::uint64_t elementBytes,
                   const TransportTraffic& traffic) {
  if (traffic.copies == 1) return 0;
  // The messages below the single-copy size go through the slots.
  return static_cast<double>(
      elements * elementBytes -
      bytesInMessagesFrom(elements, elementBytes, traffic.segmentBytes, traffic.singleCopyBytes));
}

std::vector<MemoryPasses> memoryPasses(const schedule::Schedule& schedule, std::uint64_t count,
                                       DataType type, const TransportTraffic& traffic) {
  std::vector<MemoryPasses> passes(schedule.ranks);
  const std::uint64_t elementBytes = dataTypeSize(type);
  for (const schedule::Step& step : schedule.steps) {
    for (const schedule::Transfer& t : step.transfers) {
      // The executor sends block by block (exec/rank_plan), each block cut into segments.
      for (std::uint32_t b = t.firstBlock; b < t.lastBlock; ++b) {
        const std::uint64_t elements = partitionChunk(count, schedule.blocks, b).count;
        const double bytes = static_cast<double>(elements * elementBytes);
        const double slotted = slotBytesOf(elements, elementBytes, traffic);
        MemoryPasses& dst = passes[t.dst];
        passes[t.src].slotIn += slotted;
        if (t.mode == schedule::RecvMode::Reduce) {
          dst.slotReduce += slotted;
          dst.reduce += bytes - slotted;
        } else {
          dst.slotCopyOut += slotted;
          dst.copy += bytes - slotted;
        }
      }
    }
  }
  return passes;
}

// A pass with one side in cache is no slower than the same pass between buffers: where noise
// says otherwise (small rows, all in cache anyway), the faster rate keeps the roofline a bound.
double slotRate(double slot, double buffers) {
  return std::isfinite(slot) && slot > 0 ? std::max(slot, buffers) : slot;
}

double secondsOf(const MemoryPasses& m, const MachineRates& rates) {
  const double in = slotRate(rates.slotCopyInBytesPerSecond, rates.copyBytesPerSecond);
  const double out = slotRate(rates.slotCopyOutBytesPerSecond, rates.copyBytesPerSecond);
  const double sum = slotRate(rates.slotReduceBytesPerSecond, rates.reduceBytesPerSecond);
  return perSecond(m.slotIn, in, "slot copy-in rate") +
         perSecond(m.slotCopyOut, out, "slot copy-out rate") +
         perSecond(m.slotReduce, sum, "slot reduce rate") +
         perSecond(m.copy, rates.copyBytesPerSecond, "copy rate") +
         perSecond(m.reduce, rates.reduceBytesPerSecond, "reduce rate");
}

// One rank's bytes over the loopback, summed over steps: those sent while it also receives in
// the same step (two-way), and the rest of the larger direction (one-way).
struct WireBytes {
  double twoWay = 0, oneWay = 0;
};

std::vector<WireBytes> wireBytes(const schedule::Schedule& schedule, std::uint64_t count,
                                 DataType type) {
  std::vector<WireBytes> wire(schedule.ranks);
  const std::uint64_t elementBytes = dataTypeSize(type);
  for (const schedule::Step& step : schedule.steps) {
    std::vector<double> sent(schedule.ranks, 0), received(schedule.ranks, 0);
    for (const schedule::Transfer& t : step.transfers) {
      const double bytes = static_cast<double>(
          partitionSpan(count, schedule.blocks, t.firstBlock, t.lastBlock).count * elementBytes);
      sent[t.src] += bytes;
      received[t.dst] += bytes;
    }
    for (int r = 0; r < schedule.ranks; ++r) {
      wire[r].twoWay += std::min(sent[r], received[r]);
      wire[r].oneWay += std::abs(sent[r] - received[r]);
    }
  }
  return wire;
}

// The loopback's total rate, all connections together: the most any measurement carried. Only
// with a ring of connections measured: one connection or a pair says nothing of what more of them
// carry on a host with more cores.
struct TotalRate {
  double bytesPerSecond = 0;
  LoopbackLimit from = LoopbackLimit::BusiestRank;
};

TotalRate loopbackTotal(const MachineRates& rates) {
  TotalRate best{.bytesPerSecond = rates.loopbackRingConnections * rates.loopbackRingBytesPerSecond,
                 .from = LoopbackLimit::AllRanksRing};
  if (!std::isfinite(best.bytesPerSecond) || best.bytesPerSecond <= 0)
    throwInvalid(
        "roofline: ring loopback rate = " + std::to_string(rates.loopbackRingBytesPerSecond) +
        " bytes/s over " + std::to_string(rates.loopbackRingConnections) +
        " connections: must be a finite rate > 0");
  // The pair's rates where measured (a rate of 0 was not), and faster.
  const TotalRate pair[] = {{2 * rates.loopbackTwoWayBytesPerSecond, LoopbackLimit::AllRanksTwoWay},
                            {rates.loopbackBytesPerSecond, LoopbackLimit::AllRanksOneWay}};
  for (const TotalRate& other : pair) {
    if (std::isfinite(other.bytesPerSecond) && other.bytesPerSecond > best.bytesPerSecond)
      best = other;
  }
  return best;
}

// The cores the ranks run on: with more ranks than cores, each rank has a share of one.
double usedCores(const schedule::Schedule& schedule, const MachineRates& rates) {
  return std::min(schedule.ranks, rates.cores);
}

Roofline overNetwork(const schedule::Schedule& schedule, std::uint64_t count, DataType type,
                     const MachineRates& rates) {
  Roofline result;
  const std::vector<WireBytes> wire = wireBytes(schedule, count, type);
  const schedule::VolumeReport counted = schedule::countVolume(schedule, count, type);
  const auto& volume = counted.perRank;
  for (int r = 0; r < schedule.ranks; ++r) {
    const double reduced = static_cast<double>(volume[r].reducedBytes);
    const double wireSeconds =
        perSecond(wire[r].twoWay, rates.loopbackTwoWayBytesPerSecond, "two-way loopback rate") +
        perSecond(wire[r].oneWay, rates.loopbackBytesPerSecond, "loopback rate");
    const double seconds =
        std::max(wireSeconds, perSecond(reduced, rates.reduceBytesPerSecond, "reduce rate"));
    if (seconds >= result.seconds)
      result = {.reduceBytes = reduced,
                .wireBytes = wire[r].twoWay + wire[r].oneWay,
                .twoWayWireBytes = wire[r].twoWay,
                .seconds = seconds};
  }
  // Each byte sent crosses the loopback once.
  const double allRanksWire = static_cast<double>(counted.totalSentBytes);
  result.allRanksWireBytes = allRanksWire;
  // All ranks' connections share the cores: no faster than the loopback's total rate. Small
  // messages in flight both ways can still beat it: the figure is for the large sizes.
  if (rates.loopbackRingConnections > 0 && allRanksWire > 0) {
    const TotalRate total = loopbackTotal(rates);
    const double shared = allRanksWire / total.bytesPerSecond;
    if (shared > result.seconds) {
      result.seconds = shared;
      result.loopbackLimit = total.from;
    }
  }
  // All ranks' reductions share the cores too, overlapped at best with the wire: with more ranks
  // than cores, a rank reduces on a share of one.
  double allRanksReduced = 0;
  for (const schedule::RankVolume& v : volume)
    allRanksReduced += static_cast<double>(v.reducedBytes);
  const double sharedReduce =
      perSecond(allRanksReduced, rates.reduceBytesPerSecond, "reduce rate") /
      usedCores(schedule, rates);
  if (sharedReduce > result.seconds) {
    result.seconds = sharedReduce;
    result.coresShared = true;
  }
  return result;
}

}  // namespace

Roofline roofline(const schedule::Schedule& schedule, std::uint64_t count, DataType type,
                  const TransportTraffic& traffic, const MachineRates& rates) {
  if (traffic.copies != 1 && traffic.copies != 2)
    throwInvalid("roofline: copies = " + std::to_string(traffic.copies) +
                 ": must be 1 (in place) or 2 (through slots)");
  if (traffic.segmentBytes == 0) throwInvalid("roofline: segment size 0: must be >= 1 byte");
  if (rates.cores < 1)
    throwInvalid("roofline: cores = " + std::to_string(rates.cores) + ": must be >= 1");
  if (traffic.network) return overNetwork(schedule, count, type, rates);
  Roofline result;
  double allRanksSeconds = 0;
  for (const MemoryPasses& m : memoryPasses(schedule, count, type, traffic)) {
    const double seconds = secondsOf(m, rates);
    allRanksSeconds += seconds;
    if (seconds >= result.seconds) {
      result = {.copyBytes = m.slotIn + m.slotCopyOut + m.copy,
                .reduceBytes = m.slotReduce + m.reduce,
                .slotBytes = m.slotIn + m.slotCopyOut + m.slotReduce,
                .seconds = seconds};
    }
  }
  // Memory passes of all ranks share the cores.
  const double shared = allRanksSeconds / usedCores(schedule, rates);
  if (shared > result.seconds) {
    result.seconds = shared;
    result.coresShared = true;
  }
  return result;
}

}  // namespace ringlab::model
