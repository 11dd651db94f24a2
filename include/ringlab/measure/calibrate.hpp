#pragma once
// Calibration: alpha and beta from point-to-point ping-pong over the transport at hand, gamma
// from the reduction kernel alone, how many transfers progress at once, and where the host's data
// leave the cache: copy and reduce rates against working-set size (the roofline's probes,
// machine_rates.hpp), their knee, and what the memory regime beyond it adds to beta and gamma;
// measured by one rank's part over any transport (threads, processes over shm or tcp, MPI) in
// interleaved rounds, so that the noise between rounds shows in each coefficient's interval. Never
// fitted to AllReduce timings (the seed's warning).
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/progress.hpp"
#include "ringlab/job/transports.hpp"
#include "ringlab/measure/measure_labels.hpp"
#include "ringlab/measure/record.hpp"
#include "ringlab/model/fit.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::measure {

// The element type gamma is measured on (a sum in place): a profile's gamma is this type's.
inline constexpr DataType kCalibrateReduceType = DataType::Float32;

struct CalibrateConfig {
  std::string transport = job::defaultTransport();  // a name in the transport table
  // p, as the job to be predicted runs it (the wait policy, the pairs that fit and the cores left
  // all depend on it). calibrateRank takes the job's size instead.
  int ranks = 4;
  std::uint64_t minBytes = 8, maxBytes = 64ull << 20;
  int iterations = 20;
  int rounds = 3;  // every measurement once per round; the order rotates from round to round
  std::chrono::milliseconds timeout{60'000};  // for any one message of the ping-pongs
  MeasureLabels labels;                       // how validate() names the inputs
};

// Times (seconds) and the line through them (least squares on relative error): one point per size
// per round, sizes in increasing order and the rounds of one size next to each other.
struct FittedSizes {
  std::vector<std::uint64_t> sizes;
  std::vector<double> seconds;
  model::LineFit fit;
};

// The points of `bySize` (seconds per round, by size) in size order, the rounds of one size
// together, and the line through the sizes up to `inCacheBytes` where there are two or more and
// their slope is positive, else through all (on a busy machine a few small sizes can slope down:
// a line through all is then the better figure). inCacheBytes 0: through all.
FittedSizes fitInCache(const std::map<std::uint64_t, std::vector<double>>& bySize,
                       double inCacheBytes);

// k ping-pong pairs at once: their aggregate rate (sum of bytes / one-way time), and that over
// one pair's.
struct ConcurrencyStep {
  int pairs = 0;
  double bytesPerSecond = 0;
  double overOnePair = 0;
};

// The profile's concurrent_transfers from the k-pair steps (k = 1 first): the best ratio to one
// pair, at least 1, each capped at its k (k pairs cannot carry more than k pairs' bytes; a ratio
// above k means the one pair was slowed). Fewer than 2 steps (p < 4): 0, not measured.
struct ConcurrencyFigure {
  double transfers = 0;
  bool capped = false;
};
ConcurrencyFigure concurrencyFigure(const std::vector<ConcurrencyStep>& steps);

// The working sets probed: 64 KiB, doubling, up to four times the largest message (a job's
// ranks' inputs and outputs; at least 256 KiB), at most kRateMaxWorkingSetBytes.
std::vector<std::uint64_t> workingSetSizes(const CalibrateConfig& config);

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

// The message size from which `t`'s reducing receives read the sender's buffer in place, one pass
// (model::FusionParams); 0: never.
std::uint64_t fusedReduceFromBytes(const transport::Transport& t);

// Per size: the median over rounds, and the spread (max - min) over that median.
struct SizeSummary {
  std::uint64_t bytes = 0;
  double medianSeconds = 0, relativeSpread = 0;
};
std::vector<SizeSummary> summarize(const FittedSizes& fitted);

// Throws InvalidArgument naming the option at fault: a transport not in the table, p below 2, fewer
// than 3 iterations or 1 round, sizes outside 0 < min <= max <= 1 GiB, or fewer than 3 sizes
// growing x4.
void validate(const CalibrateConfig& config);

// This rank's part of a calibration over `transport` (p = its size, at least 2), called on every
// rank of the job: ranks 0 and 1 ping-pong, rank 0 times the kernel (in and out of place) and
// probes the working sets, pairs
// (2i, 2i+1) ping-pong at once for concurrency, the others wait; between measurements every rank
// meets the others in a small AllReduce (which also sums the pairs' rates). The result is complete
// on rank 0 only. `progress` hears each measurement start and end on rank 0 (stage "ping-pong 64
// KiB", "reduce 4 MiB", "concurrency 4 pairs"; units: measurements).
Calibration calibrateRank(const CalibrateConfig& config, transport::Transport& transport,
                          const ProgressCallback& progress = {});

// The same with every rank a thread of this process, over config.transport's world of threads (a
// rank that fails, e.g. with Timeout, ends the calibration with that Error).
Calibration calibrate(const CalibrateConfig& config, const ProgressCallback& progress = {});

// The profile the calibration gives, stamped with `info` (version, host, date, placement) and the
// transport, with the 95% half-widths of alpha, beta and gamma and the reasons the fit is unstable
// (model::unstableReasons). Beyond the knee, beta_mem and gamma_mem are the median per-byte times
// of the ping-pong and kernel sizes whose own working set is beyond it; where calibrate timed none
// there, beta and gamma plus what a byte's copy and reduction cost more beyond the knee than in
// the cache below it (the probes' medians beyond it, and from an eighth of it up to it).
// Throws Error(Unreliable) when a fitted slope is not positive: the machine was too noisy or the
// sizes too small for the fit; its advice names the inputs to change by `labels`.
model::Profile calibratedProfile(const Calibration& calibration, const std::string& transport,
                                 const RunInfo& info, const MeasureLabels& labels = {});

}  // namespace ringlab::measure
