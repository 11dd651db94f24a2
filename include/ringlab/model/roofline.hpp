#pragma once
// The roofline of a row: the time a schedule's memory traffic needs at this machine's copy and
// reduce rates (and, over tcp, at the loopback rate), with nothing else (no startup, no waiting).
// A row's measured time over it says how far from the physical limit the row is.
//
// What is counted, per rank, from the schedule's own transfers, cut into messages as the executor
// cuts them (segments of TransportTraffic::segmentBytes, core/partition.hpp):
//   shared memory (shm, inproc): a message moves in one memory pass (the receiver copies, or
//     reduces where the schedule reduces, straight from the sender's buffer: inproc always, shm
//     from TransportTraffic::singleCopyBytes up) or in two through the transport's slots (shm
//     below it: the sender copies into a slot, the receiver copies or reduces out of it). The
//     slot side of each pass stays in cache, so slot passes are priced at the slot rates (or the
//     buffer rates where those measured faster); passes between rank buffers at the copy and
//     reduce rates. A rank's passes run one after the other on its core.
//   network (tcp): per step, the larger of a rank's sent and received bytes over the loopback
//     (the kernel's copies are inside its rates): the bytes it sends while it also receives (the
//     smaller of the two) at the two-way rate, per direction with both directions at once, the
//     rest at the one-way rate. A ring sends and receives in every step, so all its bytes go at
//     the two-way rate; a schedule whose rank only sends or only receives in a step (a tree's
//     reduce, a broadcast) gets the one-way rate there. Overlapped at best with its reductions.
//     Where a ring of the job's ranks was measured (MachineRates::loopbackRingConnections), the
//     ranks' connections share the host's cores: the wire time is also at least all ranks' bytes
//     over the loopback's total rate, the most bytes per second it carried in any measurement
//     (one connection one way, a pair both ways, the ring all at once). For a ring, whose ranks
//     send equal bytes in every step, that is each rank's bytes at the ring's per-connection rate
//     where that is the slowest; for any other schedule (a tree's steps) it is a bound too.
// Ranks share the host's cores: with more ranks than cores each gets a share of one (p = 4 on two
// cores: half), so the roofline is also at least all ranks' memory passes (shared memory) or all
// ranks' reductions (tcp) over min(p, cores) cores.
#include <cstdint>
#include <string>

#include "ringlab/core/dtype.hpp"
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::model {

inline constexpr std::uint64_t kNeverSingleCopy = UINT64_MAX;

// A ring of fixed-size slots that messages below the single-copy size pass through (shared
// memory): the size of a slot, and how many a channel has before the first is reused.
struct SlotRing {
  std::uint64_t slotBytes = 0;
  std::uint64_t slots = 0;
};

// How a transport moves a message from one rank's buffer to another's. Each transport states its
// own in the transport table (job/transports.hpp); the model prices whatever it is given.
struct TransportTraffic {
  bool network = false;  // bytes cross the loopback, not memory copies
  // Shared memory: memory passes per byte of a message below singleCopyBytes: 1 (in place) or 2
  // (through slots). Messages of at least singleCopyBytes take one pass.
  int copies = 1;
  std::uint64_t singleCopyBytes = kNeverSingleCopy;
  std::uint64_t segmentBytes = UINT64_MAX;  // the executor cuts transfers into messages this large
  SlotRing slots;                           // where copies == 2
};

// Bytes per second, each > 0 where it is used.
struct MachineRates {
  double copyBytesPerSecond = 0;            // between two buffers of the message's size
  double reduceBytesPerSecond = 0;          // of the row's datatype
  double slotCopyInBytesPerSecond = 0;      // from a buffer into cache-resident slots
  double slotCopyOutBytesPerSecond = 0;     // from slots into a buffer
  double slotReduceBytesPerSecond = 0;      // a buffer reduced with a slot into a buffer
  double loopbackBytesPerSecond = 0;        // tcp only: one direction alone
  double loopbackTwoWayBytesPerSecond = 0;  // tcp only: per direction, both directions at once
  double loopbackRingBytesPerSecond = 0;    // tcp only: per connection, a ring of them at once
  int loopbackRingConnections = 0;          // the ring's connections; 0: not measured
  int cores = 1;
};

// What set a tcp row's wire time: the busiest rank's bytes at the pair's rates, or all ranks'
// bytes at the loopback's total rate, as measured by the ring, the pair both ways or one way.
enum class LoopbackLimit { BusiestRank, AllRanksRing, AllRanksTwoWay, AllRanksOneWay };

// The busiest rank's passes (bytes) and the roofline time.
struct Roofline {
  double copyBytes = 0, reduceBytes = 0, wireBytes = 0;  // of the busiest rank
  double slotBytes = 0;  // of copyBytes + reduceBytes, those that go through slots (both sides)
  double twoWayWireBytes = 0;    // of wireBytes, those priced at the two-way loopback rate
  double allRanksWireBytes = 0;  // tcp: all ranks' bytes over the loopback
  LoopbackLimit loopbackLimit = LoopbackLimit::BusiestRank;
  // The time is all ranks' passes (or tcp's reductions) over the cores they share, not the busiest
  // rank's on a core of its own.
  bool coresShared = false;
  double seconds = 0;
};

// The roofline of `schedule` on `count` elements of `type`. Throws InvalidArgument naming the
// rate that a needed term lacks (not finite or not > 0), or copies other than 1 or 2, or a
// segment size of 0.
Roofline roofline(const schedule::Schedule& schedule, std::uint64_t count, DataType type,
                  const TransportTraffic& traffic, const MachineRates& rates);

}  // namespace ringlab::model
