#pragma once
// Calibration: alpha and beta from point-to-point ping-pong over the transport at hand, gamma
// from the reduction kernel alone, and how many transfers progress at once on this host. Never
// fitted to AllReduce timings (the seed's warning).
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/progress.hpp"
#include "ringlab/measure/record.hpp"
#include "ringlab/model/fit.hpp"
#include "ringlab/model/profile.hpp"

namespace ringlab::measure {

// The element type gamma is measured on (a sum in place): a profile's gamma is this type's.
inline constexpr DataType kCalibrateReduceType = DataType::Float32;

struct CalibrateConfig {
  std::string transport = "inproc";
  std::uint64_t minBytes = 8, maxBytes = 64ull << 20;
  int iterations = 20;
  std::chrono::milliseconds timeout{60'000};  // for any one message of the ping-pongs
};

// Times per size (seconds) and the line through them (least squares on relative error).
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
  FittedSizes link;    // one-way time (round trip / 2), best of the round trips
  FittedSizes reduce;  // kCalibrateReduceType sum in place, median of the runs
  std::uint64_t concurrencyBytes = 0;
  std::vector<ConcurrencyStep> concurrency;  // k = 1, 2, 4, ... up to twice the core count
  double concurrentTransfers = 1;            // the best overOnePair
};

// Throws InvalidArgument naming the option at fault: a transport other than inproc, fewer than 3
// iterations, sizes outside 0 < min <= max <= 1 GiB, or fewer than 3 sizes growing x4.
void validate(const CalibrateConfig& config);

// Measures (ranks as threads; a rank that fails, e.g. with Timeout, ends the calibration with
// that Error). `progress` hears each measurement start and end (stage "ping-pong 64 KiB",
// "reduce 4 MiB", "concurrency 4 pairs"; units: measurements).
Calibration calibrate(const CalibrateConfig& config, const ProgressCallback& progress = {});

// The profile the calibration gives, stamped with `info` (version, host, date) and the transport.
// Throws Error(Unreliable) when a fitted slope is not positive: the machine was too noisy or the
// sizes too small for the fit.
model::Profile calibratedProfile(const Calibration& calibration, const std::string& transport,
                                 const RunInfo& info);

}  // namespace ringlab::measure
