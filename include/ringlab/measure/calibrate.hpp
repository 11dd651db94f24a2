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
#include "ringlab/model/fit.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/record/calibration.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::measure {

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

// The points of `bySize` (seconds per round, by size) in size order, the rounds of one size
// together, and the line through the sizes up to `inCacheBytes` where there are two or more and
// their slope is positive, else through all (on a busy machine a few small sizes can slope down:
// a line through all is then the better figure). inCacheBytes 0: through all.
record::FittedSizes fitInCache(const std::map<std::uint64_t, std::vector<double>>& bySize,
                               double inCacheBytes);

// The profile's concurrent_transfers from the k-pair steps (k = 1 first): the best ratio to one
// pair, at least 1, each capped at its k (k pairs cannot carry more than k pairs' bytes; a ratio
// above k means the one pair was slowed). Fewer than 2 steps (p < 4): 0, not measured.
struct ConcurrencyFigure {
  double transfers = 0;
  bool capped = false;
};
ConcurrencyFigure concurrencyFigure(const std::vector<record::ConcurrencyStep>& steps);

// The working sets probed: 64 KiB, doubling, up to four times the largest message (a job's
// ranks' inputs and outputs; at least 256 KiB), at most kRateMaxWorkingSetBytes.
std::vector<std::uint64_t> workingSetSizes(const CalibrateConfig& config);

// The message size from which `t`'s reducing receives read the sender's buffer in place, one pass
// (model::FusionParams); 0: never.
std::uint64_t fusedReduceFromBytes(const transport::Transport& t);

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
record::Calibration calibrateRank(const CalibrateConfig& config, transport::Transport& transport,
                                  const ProgressCallback& progress = {});

// The same with every rank a thread of this process, over config.transport's world of threads (a
// rank that fails, e.g. with Timeout, ends the calibration with that Error).
record::Calibration calibrate(const CalibrateConfig& config, const ProgressCallback& progress = {});

// The profile the calibration gives, stamped with `info` (version, host, date, placement) and the
// transport, with the 95% half-widths of alpha, beta and gamma and the reasons the fit is unstable
// (model::unstableReasons). Beyond the knee, beta_mem and gamma_mem are the median per-byte times
// of the ping-pong and kernel sizes whose own working set is beyond it; where calibrate timed none
// there, beta and gamma plus what a byte's copy and reduction cost more beyond the knee than in
// the cache below it (the probes' medians beyond it, and from an eighth of it up to it).
// Throws Error(Unreliable) when a fitted slope is not positive: the machine was too noisy or the
// sizes too small for the fit; its advice names the inputs to change by `labels`.
model::Profile calibratedProfile(const record::Calibration& calibration,
                                 const std::string& transport, const record::RunInfo& info,
                                 const MeasureLabels& labels = {});

}  // namespace ringlab::measure
