#include "ringlab/measure/calibrate.hpp"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/exec/pingpong.hpp"
#include "ringlab/measure/rank_threads.hpp"
#include "ringlab/transport/inproc.hpp"

namespace ringlab::measure {
namespace {

using model::median;

// One-way times (round trip / 2) of `bytes` for each of `pairs` ping-pong pairs running at once,
// ranks as threads over the in-process transport (pair i is ranks 2i and 2i+1).
std::vector<std::vector<double>> pingPongPairs(int pairs, std::uint64_t bytes, int iterations,
                                               std::chrono::milliseconds timeout) {
  transport::InprocWorld world(2 * pairs);
  std::vector<std::vector<std::byte>> buffers(2 * pairs,
                                              std::vector<std::byte>(bytes, std::byte{1}));
  std::vector<std::vector<double>> samples(pairs);
  runRankThreads(world, [&](int r) {
    const bool initiator = r % 2 == 0;
    auto oneWay = exec::pingPong(world.transport(r), initiator ? r + 1 : r - 1, initiator,
                                 buffers[r].data(), bytes, 2, iterations, timeout);
    if (initiator) samples[r / 2] = std::move(oneWay);
  });
  return samples;
}

// The best one-way time per size: the transport's own cost. Not the median: on a shared machine
// a waiting thread that was put to sleep takes ~50 us to wake, which is the scheduler's delay, not
// the transport's (docs/MODEL_VS_MEASURED.md).
std::vector<std::uint64_t> linkSizes(const CalibrateConfig& c) {
  return geometricSizes(c.minBytes, c.maxBytes, 4);
}

FittedSizes measureLink(const CalibrateConfig& c, ProgressMeter& meter) {
  FittedSizes link;
  link.sizes = linkSizes(c);
  for (std::uint64_t bytes : link.sizes) {
    meter.stage("ping-pong " + formatSize(bytes));
    const std::vector<double> samples = pingPongPairs(1, bytes, c.iterations, c.timeout).front();
    meter.advance();
    link.seconds.push_back(*std::min_element(samples.begin(), samples.end()));
  }
  link.fit = model::fitLineRelative({link.sizes.begin(), link.sizes.end()}, link.seconds);
  return link;
}

// Median time of reduce(kCalibrateReduceType, sum) in place, per size, over sizes of at least 64
// KiB up to at least 1 MiB: the kernel's rate, not its call overhead.
std::vector<std::uint64_t> reduceSizes(const CalibrateConfig& c) {
  return geometricSizes(std::max<std::uint64_t>(c.minBytes, 64 * 1024),
                        std::max<std::uint64_t>(c.maxBytes, 1 << 20), 4);
}

FittedSizes measureReduce(const CalibrateConfig& c, ProgressMeter& meter) {
  FittedSizes red;
  red.sizes = reduceSizes(c);
  static_assert(kCalibrateReduceType == DataType::Float32, "the buffers below hold floats");
  std::vector<float> a(red.sizes.back() / 4, 1.0f), b(red.sizes.back() / 4, 2.0f);
  for (std::uint64_t bytes : red.sizes) {
    meter.stage("reduce " + formatSize(bytes));
    std::vector<double> samples;
    for (int i = 0; i < c.iterations + 2; ++i) {
      const auto start = std::chrono::steady_clock::now();
      reduce(kCalibrateReduceType, ReduceOp::Sum, a.data(), a.data(), b.data(), bytes / 4);
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (i >= 2) samples.push_back(s);
    }
    red.seconds.push_back(median(samples));
    meter.advance();
  }
  red.fit = model::fitLineRelative({red.sizes.begin(), red.sizes.end()}, red.seconds);
  return red;
}

// How many transfers progress at full speed at once on this host: the aggregate rate of k
// simultaneous ping-pong pairs over the rate of one, at its best over k = 1, 2, 4, ... up to twice
// the core count.
std::vector<int> concurrencyPairs() {
  const int maxPairs = 2 * std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<int> pairs;
  for (int k = 1; k <= maxPairs; k *= 2) pairs.push_back(k);
  return pairs;
}

void measureConcurrency(const CalibrateConfig& c, Calibration& out, ProgressMeter& meter) {
  out.concurrencyBytes = std::min<std::uint64_t>(c.maxBytes, 16 << 20);
  double single = 0;
  out.concurrentTransfers = 1;
  for (int pairs : concurrencyPairs()) {
    meter.stage(fmt::format("concurrency {} pair{}", pairs, pairs == 1 ? "" : "s"));
    double rate = 0;
    // Medians here: the pairs contend, and the best sample of each would come from moments when
    // the others happened to be idle.
    for (const auto& samples : pingPongPairs(pairs, out.concurrencyBytes, c.iterations, c.timeout))
      rate += static_cast<double>(out.concurrencyBytes) / median(samples);
    if (pairs == 1) single = rate;
    out.concurrency.push_back({pairs, rate, rate / single});
    out.concurrentTransfers = std::max(out.concurrentTransfers, rate / single);
    meter.advance();
  }
}

}  // namespace

void validate(const CalibrateConfig& c) {
  if (c.transport != "inproc")
    throwInvalid("transport '" + c.transport + "' is not available yet: valid is inproc");
  if (c.iterations < 3)
    throwInvalid("-n/--iters " + std::to_string(c.iterations) + ": must be >= 3 for a median");
  if (c.minBytes == 0 || c.minBytes > c.maxBytes || c.maxBytes > (1ull << 30)) {
    throwInvalid("-b/--minbytes " + std::to_string(c.minBytes) + " and -e/--maxbytes " +
                 std::to_string(c.maxBytes) + ": need 0 < min <= max <= 1G");
  }
  if (linkSizes(c).size() < 3)
    throwInvalid("calibration needs at least 3 sizes: widen -b/-e (sizes grow x4)");
}

Calibration calibrate(const CalibrateConfig& config, const ProgressCallback& progress) {
  validate(config);
  ProgressMeter meter(
      progress, linkSizes(config).size() + reduceSizes(config).size() + concurrencyPairs().size());
  Calibration out;
  out.link = measureLink(config, meter);
  out.reduce = measureReduce(config, meter);
  measureConcurrency(config, out, meter);
  return out;
}

model::Profile calibratedProfile(const Calibration& c, const std::string& transport,
                                 const RunInfo& info) {
  const model::LineFit &link = c.link.fit, &red = c.reduce.fit;
  if (link.slope <= 0 || red.slope <= 0) {
    throw Error(ErrorCode::Unreliable,
                fmt::format("the measurement was too noisy to fit: a non-positive slope (beta {} "
                            "s/B, gamma {} s/B); rerun on a quieter machine, with more -n/--iters "
                            "or a larger -e/--maxbytes",
                            link.slope, red.slope));
  }
  const std::vector<double> xs(c.link.sizes.begin(), c.link.sizes.end());
  const std::vector<double> rx(c.reduce.sizes.begin(), c.reduce.sizes.end());
  model::Profile p;
  p.params.link = {std::max(0.0, link.intercept), link.slope};
  p.params.reduce = {red.slope};
  p.params.host = {c.concurrentTransfers};
  const model::MemoryRegime regime = model::detectMemoryRegime(xs, c.link.seconds);
  p.params.memory = {regime.cacheBytes, regime.secondsPerByte,
                     regime.cacheBytes > 0 ? model::medianPerByteAbove(rx, c.reduce.seconds,
                                                                       regime.cacheBytes, red.slope)
                                           : 0};
  p.transport = transport;
  p.host = info.host;
  p.ringlabVersion = info.version;
  p.date = info.date;
  p.linkFitR2 = link.r2;
  p.reduceFitR2 = red.r2;
  return p;
}

}  // namespace ringlab::measure
