#pragma once
// How a long computation says how far it is, without knowing who listens: it calls a
// ProgressCallback, and a front end draws what it hears (the CLI's line on a terminal). Pure
// layers take one too: calling it is no I/O of theirs. Nothing here writes anywhere.
#include <cstdint>
#include <functional>
#include <string>

namespace ringlab {

struct Progress {
  std::string stage;        // what runs now, e.g. "ring 64 KiB (round 1/2)"
  std::uint64_t done = 0;   // units finished: never decreases, ends at total
  std::uint64_t total = 0;  // units in all, fixed for one computation
};

using ProgressCallback = std::function<void(const Progress&)>;

// Counts `total` units for a callback (which may be empty) so that a loop may report every unit
// at the cost of a comparison: it calls back at every stage change, each time another
// 1/kReports of the total is done, and when the total is reached.
class ProgressMeter {
 public:
  static constexpr std::uint64_t kReports = 1000;

  ProgressMeter(ProgressCallback callback, std::uint64_t total);

  // The stage the next units belong to; reports at once.
  void stage(std::string text);
  // `units` more are done (never beyond the total).
  void advance(std::uint64_t units = 1);

 private:
  void report();

  ProgressCallback callback_;
  Progress progress_;
  std::uint64_t step_ = 1, nextReport_ = 0;
};

}  // namespace ringlab
