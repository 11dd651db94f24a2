#pragma once
// This machine's own rates, for the roofline (model/roofline.hpp): one core's copy rate
// (copyBytes or copyBytesStreaming, the faster), a datatype's reduction rate (reduce, sum, in
// place: out = out + in), each between blocks of a pass's size and with one side in shm's slots,
// while a job's data the size of its working set goes through the caches; and the loopback's rates
// per TCP connection: one way, both ways at once, and in a ring of the job's ranks. Timed here; the
// arithmetic is model's.
#include <cstdint>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/model/roofline.hpp"
#include "ringlab/record/roofline_report.hpp"

namespace ringlab::measure {

// Sizes above this are measured at it: past the caches the rates no longer change, and larger
// buffers cost page faults and memory for nothing.
inline constexpr std::uint64_t kRateMaxBytes = 64ull << 20;
// Working sets above this are measured at it, for the same reasons (here the copy rate fell by
// about a tenth from 128 to 256 MiB, against half from 16 to 64 MiB: docs/roofline.md).
inline constexpr std::uint64_t kRateMaxWorkingSetBytes = 256ull << 20;

// The pass that probes a working set: blocks of an eighth of it, 4 KiB to 1 MiB (the sizes of a
// job's segments and chunks). calibrate probes its working sets with it and the roofline the
// working set of each row, so a rate a profile recorded is the one the roofline would measure.
record::PassSize workingSetPass(std::uint64_t workingSetBytes);

struct SizeRates {
  record::PassSize pass;
  double copyBytesPerSecond = 0;
  double reduceBytesPerSecond = 0;
  // The same passes with one side in shm's ring of slots (which stays in cache): a buffer copied
  // into the slots, the slots copied into a buffer, a buffer reduced with the slots in place.
  double slotCopyInBytesPerSecond = 0;
  double slotCopyOutBytesPerSecond = 0;
  double slotReduceBytesPerSecond = 0;
};

// Copy and `type` sum rates, direct and through slots, for each pass: blocks of min(bytes,
// kRateMaxBytes), rounded down to whole elements (at least one), taken in turn from an arena of
// min(working set, kRateMaxWorkingSetBytes) (at least two blocks) so that each block comes back
// after the whole arena; allocated and touched once, each pass repeated for at least a few
// milliseconds and a turn of the arena, the best repetition taken (the machine's limit, not its
// noise). The slot passes go through a ring of `slots` (job::probedSlotRing(): the table's).
std::vector<SizeRates> measureSizeRates(const std::vector<record::PassSize>& passes, DataType type,
                                        const model::SlotRing& slots);

// Bytes per second over 127.0.0.1, per connection.
struct LoopbackRates {
  // One connection, one direction alone: a sender thread and a receiver thread.
  double oneWayBytesPerSecond = 0;
  // One connection, per direction, with both directions at once (a sender and a receiver thread
  // at each end), as a ring rank sends to one neighbour while it receives from the other: on one
  // host both directions' kernel copies share the cores, so each gets less than one direction
  // alone.
  double twoWayBytesPerSecond = 0;
  // A ring of ringConnections connections (i -> i + 1), all busy at once, a sender and a receiver
  // thread each: per connection. As a ring of that many ranks uses the loopback: where the
  // connections outnumber the cores, their kernel copies share them. 0 where ringConnections < 3
  // (a ring of two is the two-way pair).
  double ringBytesPerSecond = 0;
  int ringConnections = 0;
};

// Each rate the best of a few transfers (64 MiB per direction for the pair; 128 MiB in all, at
// least 1 MiB a connection, for the ring). Throws Error(Transport) when no socket can be made or a
// transfer falls short.
LoopbackRates measureLoopbackRates(int ringConnections);

}  // namespace ringlab::measure
