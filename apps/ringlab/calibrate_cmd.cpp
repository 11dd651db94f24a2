// `ringlab calibrate`: alpha and beta from point-to-point ping-pong over the transport at hand,
// gamma from the reduction kernel alone. Never fitted to AllReduce timings (the seed's warning).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/exec/pingpong.hpp"
#include "ringlab/model/fit.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/transport/inproc.hpp"
#include "run_info.hpp"

namespace ringlab::cli {
namespace {

struct CalibrateArgs {
  std::string transport = "inproc", out = "ringlab-profile.json";
  std::string minBytes = "8", maxBytes = "64M";
  int iterations = 20;
};

using model::median;

// One-way times (round trip / 2) of `bytes` for each of `pairs` ping-pong pairs running at once,
// ranks as threads over the in-process transport (pair i is ranks 2i and 2i+1).
std::vector<std::vector<double>> pingPongPairs(int pairs, std::uint64_t bytes, int iterations) {
  transport::InprocWorld world(2 * pairs);
  std::vector<std::vector<std::byte>> buffers(2 * pairs,
                                              std::vector<std::byte>(bytes, std::byte{1}));
  std::vector<std::vector<double>> samples(pairs);
  const std::chrono::milliseconds timeout(60'000);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2 * pairs; ++r) {
    threads.emplace_back([&, r] {
      const bool initiator = r % 2 == 0;
      auto oneWay = exec::pingPong(world.transport(r), initiator ? r + 1 : r - 1, initiator,
                                   buffers[r].data(), bytes, 2, iterations, timeout);
      if (initiator) samples[r / 2] = std::move(oneWay);
    });
  }
  for (auto& t : threads) t.join();
  return samples;
}

// The best one-way time per size: the transport's own cost. Not the median: on a shared machine
// a waiting thread that was put to sleep takes ~50 us to wake, which is the scheduler's delay, not
// the transport's (docs/MODEL_VS_MEASURED.md).
std::vector<double> measureLink(const std::vector<std::uint64_t>& sizes, int iterations) {
  std::vector<double> best;
  for (std::uint64_t bytes : sizes) {
    const std::vector<double> samples = pingPongPairs(1, bytes, iterations).front();
    best.push_back(*std::min_element(samples.begin(), samples.end()));
  }
  return best;
}

// How many transfers progress at full speed at once on this host: the aggregate rate of k
// simultaneous ping-pong pairs over the rate of one, at its best over k = 1, 2, 4, ... up to twice
// the core count.
double measureConcurrency(std::uint64_t bytes, int iterations) {
  const int maxPairs = 2 * std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::printf(
      "# concurrent transfers: k ping-pong pairs of %s at once; aggregate rate = sum of "
      "bytes / one-way time\n",
      formatSize(bytes).c_str());
  std::printf("# %6s %16s %12s\n", "pairs", "aggregate(GB/s)", "vs 1 pair");
  double single = 0, best = 1;
  for (int pairs = 1; pairs <= maxPairs; pairs *= 2) {
    double rate = 0;
    // Medians here: the pairs contend, and the best sample of each would come from moments when
    // the others happened to be idle.
    for (const auto& samples : pingPongPairs(pairs, bytes, iterations))
      rate += static_cast<double>(bytes) / median(samples);
    if (pairs == 1) single = rate;
    best = std::max(best, rate / single);
    std::printf("  %6d %16.2f %12.2f\n", pairs, rate / 1e9, rate / single);
  }
  return best;
}

// Median time of reduce(float32, sum) in place over `bytes`, per size.
std::vector<double> measureReduce(const std::vector<std::uint64_t>& sizes, int iterations) {
  std::vector<float> a(sizes.back() / 4, 1.0f), b(sizes.back() / 4, 2.0f);
  std::vector<double> medians;
  for (std::uint64_t bytes : sizes) {
    std::vector<double> samples;
    for (int i = 0; i < iterations + 2; ++i) {
      const auto start = std::chrono::steady_clock::now();
      reduce(DataType::Float32, ReduceOp::Sum, a.data(), a.data(), b.data(), bytes / 4);
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (i >= 2) samples.push_back(s);
    }
    medians.push_back(median(samples));
  }
  return medians;
}

void printFit(const char* what, const std::vector<std::uint64_t>& sizes,
              const std::vector<double>& times, const model::LineFit& fit) {
  std::printf(
      "# %s per size; fit = intercept + slope x bytes (least squares on relative error); "
      "R^2 = %.5f\n",
      what, fit.r2);
  std::printf("# %12s %14s %14s %10s\n", "bytes", "measured(us)", "fit(us)", "residual");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double predicted = times[i] - fit.residuals[i];
    std::printf("  %12llu %14.3f %14.3f %+9.1f%%\n", static_cast<unsigned long long>(sizes[i]),
                times[i] * 1e6, predicted * 1e6, 100 * fit.residuals[i] / times[i]);
  }
}

int runCalibrateCommand(const CalibrateArgs& a) {
  if (a.transport != "inproc")
    throwInvalid("transport '" + a.transport + "' is not available yet: valid is inproc");
  if (a.iterations < 3)
    throwInvalid("-n/--iters " + std::to_string(a.iterations) + ": must be >= 3 for a median");
  const std::uint64_t lo = parseSize(a.minBytes), hi = parseSize(a.maxBytes);
  if (lo == 0 || lo > hi || hi > (1ull << 30)) {
    throwInvalid("-b/--minbytes " + a.minBytes + " and -e/--maxbytes " + a.maxBytes +
                 ": need 0 < min <= max <= 1G");
  }
  std::ofstream out(a.out);
  if (!out) throwInvalid("--out " + a.out + ": cannot open for writing");

  const RunInfo info = currentRunInfo();
  std::printf("# ringlab calibrate: transport %s, host %s, version %s, date %s\n",
              a.transport.c_str(), info.host.c_str(), info.version.c_str(), info.date.c_str());
  const std::vector<std::uint64_t> linkSizes = geometricSizes(lo, hi, 4);
  if (linkSizes.size() < 3)
    throwInvalid("calibration needs at least 3 sizes: widen -b/-e (sizes grow x4)");
  std::vector<double> xs(linkSizes.begin(), linkSizes.end());
  const std::vector<double> linkTimes = measureLink(linkSizes, a.iterations);
  const model::LineFit link = model::fitLineRelative(xs, linkTimes);

  const std::vector<std::uint64_t> reduceSizes = geometricSizes(
      std::max<std::uint64_t>(lo, 64 * 1024), std::max<std::uint64_t>(hi, 1 << 20), 4);
  std::vector<double> rx(reduceSizes.begin(), reduceSizes.end());
  const std::vector<double> reduceTimes = measureReduce(reduceSizes, a.iterations);
  const model::LineFit red = model::fitLineRelative(rx, reduceTimes);
  const double concurrency =
      measureConcurrency(std::min<std::uint64_t>(hi, 16 << 20), a.iterations);

  printFit("point-to-point one-way time (ping-pong / 2), best of the round trips", linkSizes,
           linkTimes, link);
  printFit("reduction kernel, float32 sum in place, median of the runs", reduceSizes, reduceTimes,
           red);
  if (link.slope <= 0 || red.slope <= 0) {
    throw Error(
        ErrorCode::Internal,
        fmt::format("calibration gave a non-positive slope (beta {}, gamma {}); "
                    "the machine is too noisy or the sizes too small: rerun with a larger -e",
                    link.slope, red.slope));
  }
  model::Profile p;
  p.params.link = {std::max(0.0, link.intercept), link.slope};
  p.params.reduce = {red.slope};
  p.params.host = {concurrency};
  const model::MemoryRegime regime = model::detectMemoryRegime(xs, linkTimes);
  const double cacheBytes = regime.cacheBytes, betaMem = regime.secondsPerByte;
  p.params.memory = {
      cacheBytes, betaMem,
      cacheBytes > 0 ? model::medianPerByteAbove(rx, reduceTimes, cacheBytes, red.slope) : 0};
  p.transport = a.transport;
  p.host = info.host;
  p.ringlabVersion = info.version;
  p.date = info.date;
  p.linkFitR2 = link.r2;
  p.reduceFitR2 = red.r2;
  std::printf(
      "# alpha = %s, beta = %.4f ns/B (%.2f GB/s per direction), gamma = %.4f ns/B (%.2f GB/s), "
      "concurrent transfers = %.2f\n",
      formatMicros(p.params.link.alpha_s).c_str(), link.slope * 1e9, 1e-9 / link.slope,
      red.slope * 1e9, 1e-9 / red.slope, concurrency);
  if (cacheBytes > 0) {
    std::printf(
        "# memory regime: messages above %s: beta_mem = %.4f ns/B (%.2f GB/s), gamma_mem = %.4f "
        "ns/B "
        "(%.2f GB/s); median per-byte time of the larger sizes\n",
        formatSize(static_cast<std::uint64_t>(cacheBytes)).c_str(), betaMem * 1e9, 1e-9 / betaMem,
        p.params.memory.gamma_mem_s_per_byte * 1e9, 1e-9 / p.params.memory.gamma_mem_s_per_byte);
  } else {
    std::printf("# memory regime: none seen (no size's per-byte time doubled); one regime\n");
  }
  if (link.intercept < 0)
    std::printf("# note: the fitted intercept was negative (%.3f us); alpha set to 0\n",
                link.intercept * 1e6);
  out << model::toJson(p).dump(2) << "\n";
  std::printf("# profile written to %s\n", a.out.c_str());
  return 0;
}

}  // namespace

Action addCalibrateCommand(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "measure alpha, beta (ping-pong) and gamma (kernel) into a profile");
  cmd->add_option("--transport", args->transport, "inproc (ranks as threads)")
      ->capture_default_str();
  cmd->add_option("-o,--out", args->out, "profile file to write")->capture_default_str();
  cmd->add_option("-b,--minbytes", args->minBytes, "smallest ping-pong size")
      ->capture_default_str();
  cmd->add_option("-e,--maxbytes", args->maxBytes, "largest ping-pong size (sizes grow x4)")
      ->capture_default_str();
  cmd->add_option("-n,--iters", args->iterations,
                  "timed round trips (best taken) and kernel runs (median) per size")
      ->capture_default_str();
  return [args] { return runCalibrateCommand(*args); };
}

}  // namespace ringlab::cli
