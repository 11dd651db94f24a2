#pragma once
// The roofline of a row: the time a schedule's memory traffic needs at this machine's copy and
// reduce rates (and, over tcp, at the loopback rate), with nothing else (no startup, no waiting).
// A row's measured time over it says how far from the physical limit the row is.
//
// What is counted, per rank, from the schedule's own volumes (schedule/volume.hpp):
//   shared memory (shm, inproc): every byte a rank receives passes through memory `copies` times
//     (shm today: 2, into a slot by the sender and out of it by the receiver; a single-copy path:
//     1; inproc: 1). All passes but the last are copies done by the sender; the last is the
//     receiver's: a copy, or the reduction itself where the schedule reduces (the reduce reads
//     the incoming bytes in the same pass). Copies run at the copy rate, reductions at the reduce
//     rate (bytes of the message reduced per second), one after the other on the rank's core.
//   network (tcp): the larger of a rank's sent and received bytes at the loopback rate (the
//     kernel's copies are inside that rate), overlapped at best with its reductions.
// Shared memory: ranks share the host's cores, so the roofline is also at least the memory
// passes of all ranks over min(p, cores) cores.
#include <cstdint>
#include <string>

#include "ringlab/core/dtype.hpp"
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::model {

// How a transport moves a byte from one rank's buffer to another's.
struct TransportTraffic {
  bool network = false;  // tcp: bytes cross the loopback, not memory copies
  int copies = 1;        // shared memory: memory passes per byte received (>= 1)
};

// shm: two copies (a single-copy path passes 1 instead); inproc: one; tcp: network. Throws
// InvalidArgument naming the transport otherwise (mpi: another library moves the bytes).
TransportTraffic transportTraffic(const std::string& transport);

// Bytes per second, each > 0 where it is used.
struct MachineRates {
  double copyBytesPerSecond = 0;
  double reduceBytesPerSecond = 0;    // of the row's datatype
  double loopbackBytesPerSecond = 0;  // tcp only
  int cores = 1;
};

// The busiest rank's passes (bytes) and the roofline time.
struct Roofline {
  double copyBytes = 0, reduceBytes = 0, wireBytes = 0;  // of the busiest rank
  double seconds = 0;
};

// The roofline of `schedule` on `count` elements of `type`. Throws InvalidArgument naming the
// rate that a needed term lacks (not finite or not > 0), or copies < 1.
Roofline roofline(const schedule::Schedule& schedule, std::uint64_t count, DataType type,
                  const TransportTraffic& traffic, const MachineRates& rates);

}  // namespace ringlab::model
