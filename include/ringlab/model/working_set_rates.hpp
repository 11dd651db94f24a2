#pragma once
// One core's copy and reduce rates against the data going through its caches, as calibrate's
// working-set probes measure them (measure::workingSetPass) and a profile records them: the one
// source of the machine's memory rates that the model's knee and the roofline both read.
#include <cstdint>
#include <utility>
#include <vector>

namespace ringlab::model {

// Seconds per byte with `bytes` of data going through one core's caches: a copy, a float32 sum in
// place (out = out + in), and the same three passes with one side in shm's ring of slots.
struct WorkingSetRate {
  std::uint64_t bytes = 0;
  double copySecondsPerByte = 0;
  double reduceSecondsPerByte = 0;
  double slotCopyInSecondsPerByte = 0;
  double slotCopyOutSecondsPerByte = 0;
  double slotReduceSecondsPerByte = 0;
  bool operator==(const WorkingSetRate&) const = default;
};

// Each rate of an entry, by the name a profile gives it.
inline constexpr std::pair<const char*, double WorkingSetRate::*> kWorkingSetRateFields[] = {
    {"copy_s_per_byte", &WorkingSetRate::copySecondsPerByte},
    {"reduce_s_per_byte", &WorkingSetRate::reduceSecondsPerByte},
    {"slot_copy_in_s_per_byte", &WorkingSetRate::slotCopyInSecondsPerByte},
    {"slot_copy_out_s_per_byte", &WorkingSetRate::slotCopyOutSecondsPerByte},
    {"slot_reduce_s_per_byte", &WorkingSetRate::slotReduceSecondsPerByte}};

// The entry of `table` (smallest working set first, not empty) that prices `workingSetBytes`: the
// largest probed working set not above it, the smallest where every one is above. Rates only fall
// as the working set grows, so the entry is at least as fast as the working set's own: what it
// prices stays a bound.
inline const WorkingSetRate& rateForWorkingSet(const std::vector<WorkingSetRate>& table,
                                               double workingSetBytes) {
  const WorkingSetRate* chosen = &table.front();
  for (const WorkingSetRate& entry : table) {
    if (static_cast<double>(entry.bytes) <= workingSetBytes) chosen = &entry;
  }
  return *chosen;
}

}  // namespace ringlab::model
