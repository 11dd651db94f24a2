#pragma once
// What a calibration found (measure/calibrate.hpp measures it): the ping-pong and kernel lines,
// the concurrency steps, the working-set probes and the host's caches, as calibrate's text and
// its profile render them.
#include <cstdint>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/model/fit.hpp"
#include "ringlab/model/profile.hpp"

namespace ringlab::record {

// The element type gamma is measured on (a sum in place): a profile's gamma is this type's.
inline constexpr DataType kCalibrateReduceType = DataType::Float32;

// Times (seconds) and the line through them (least squares on relative error): one point per size
// per round, sizes in increasing order and the rounds of one size next to each other.
struct FittedSizes {
  std::vector<std::uint64_t> sizes;
  std::vector<double> seconds;
  model::LineFit fit;
};

// k ping-pong pairs at once: their aggregate rate (sum of bytes / one-way time), and that over
// one pair's.
struct ConcurrencyStep {
  int pairs = 0;
  double bytesPerSecond = 0;
  double overOnePair = 0;
};

struct Calibration {
  FittedSizes link;              // one-way time (round trip / 2), best of the round trips
  FittedSizes reduce;            // kCalibrateReduceType sum in place, median of the runs
  FittedSizes reduceOutOfPlace;  // the same into a third buffer (c = a + b)
  std::uint64_t concurrencyBytes = 0;
  std::vector<ConcurrencyStep> concurrency;  // k = 1, 2, 4, ... pairs, as many as p holds
  // The best overOnePair, each capped at its number of pairs (concurrencyFigure); 0 (unlimited)
  // when the job holds one pair only (p < 4): not measured.
  double concurrentTransfers = 1;
  bool concurrencyCapped = false;  // some overOnePair was above its number of pairs
  int ranks = 0;                   // p of the job measured in
  int rounds = 0;                  // interleaved rounds
  // Messages this large or larger are reduced as they are received (model::FusionParams); 0:
  // never. Read from the transport measured, not timed: fusedReduceFromBytes.
  std::uint64_t fusedReduceFromBytes = 0;
  // Rank 0's probes (measureSizeRates on workingSetPass), medians over rounds, smallest first; the
  // profile keeps them for the roofline. The knee of their copy plus reduce time
  // (model::memoryKnee): the largest working set still in cache, 0 for one regime. The ping-pong
  // and kernel lines are fitted through the sizes whose own working set is within it (where two or
  // more are).
  std::vector<model::WorkingSetRate> workingSets;
  double cacheKneeBytes = 0;
  std::vector<model::Profile::ReportedCache> hostCaches;  // as the host reports them
  int cores = 1;                                          // hostCores()
  int cacheCores = 1;                                     // cacheCoresOf the knee
};

// Per size: the median over rounds, and the spread (max - min) over that median.
struct SizeSummary {
  std::uint64_t bytes = 0;
  double medianSeconds = 0, relativeSpread = 0;
};
std::vector<SizeSummary> summarize(const FittedSizes& fitted);

}  // namespace ringlab::record
