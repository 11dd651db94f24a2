#include "ringlab/measure/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "ringlab/communicator.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/exec/pingpong.hpp"
#include "ringlab/job/transports.hpp"
#include "ringlab/measure/host_caches.hpp"
#include "ringlab/measure/machine_rates.hpp"
#include "ringlab/measure/rank_threads.hpp"
#include "ringlab/model/memory_regime.hpp"

namespace ringlab::measure {
namespace {

using model::median;

std::vector<std::uint64_t> linkSizes(const CalibrateConfig& c) {
  return geometricSizes(c.minBytes, c.maxBytes, 4);
}

// Reduce sizes of at least 64 KiB up to at least 1 MiB: the kernel's rate, not its call overhead.
std::vector<std::uint64_t> reduceSizes(const CalibrateConfig& c) {
  return geometricSizes(std::max<std::uint64_t>(c.minBytes, 64 * 1024),
                        std::max<std::uint64_t>(c.maxBytes, 1 << 20), 4);
}

// k = 1, 2, 4, ... pairs, as many as p ranks hold.
std::vector<int> concurrencyPairs(int ranks) {
  std::vector<int> pairs;
  for (int k = 1; 2 * k <= ranks; k *= 2) pairs.push_back(k);
  return pairs;
}

std::uint64_t concurrencyBytes(const CalibrateConfig& c) {
  return std::min<std::uint64_t>(c.maxBytes, 16 << 20);
}

// One measurement of a round: a ping-pong size, a kernel size, a number of pairs or a working set.
struct Item {
  enum class Kind { Link, Reduce, ReduceOutOfPlace, Pairs, WorkingSet } kind;
  std::uint64_t value;  // bytes, or pairs
};

// Every measurement once per round; round r starts r/rounds of the way into the list, so that
// each measurement meets a different moment of a slow drift (another job, a throttled core) in
// each round. Every rank computes the same list.
std::vector<Item> roundOrder(const CalibrateConfig& c, int ranks, int round) {
  std::vector<Item> items;
  for (std::uint64_t b : linkSizes(c)) items.push_back({Item::Kind::Link, b});
  for (std::uint64_t b : reduceSizes(c)) items.push_back({Item::Kind::Reduce, b});
  for (std::uint64_t b : reduceSizes(c)) items.push_back({Item::Kind::ReduceOutOfPlace, b});
  for (int k : concurrencyPairs(ranks)) items.push_back({Item::Kind::Pairs, std::uint64_t(k)});
  for (std::uint64_t b : workingSetSizes(c)) items.push_back({Item::Kind::WorkingSet, b});
  std::rotate(items.begin(), items.begin() + (round * items.size()) / c.rounds, items.end());
  return items;
}

// Rank 0's kernel inputs and the separate output of the out-of-place kernel, touched before
// anything is timed.
struct KernelBuffers {
  std::vector<float> a, b, out;
};

// Median time of out = a + b (kCalibrateReduceType, sum) over `bytes`, after two untimed runs: in
// place when out is a, out of place when it is a third buffer.
double timeKernel(const CalibrateConfig& c, float* out, const std::vector<float>& a,
                  const std::vector<float>& b, std::uint64_t bytes) {
  static_assert(record::kCalibrateReduceType == DataType::Float32, "the buffers hold floats");
  std::vector<double> samples;
  for (int i = 0; i < c.iterations + 2; ++i) {
    const auto start = std::chrono::steady_clock::now();
    reduce({record::kCalibrateReduceType, ReduceOp::Sum}, out, a.data(), b.data(), bytes / 4);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (i >= 2) samples.push_back(s);
  }
  return median(samples);
}

// One core's rates per byte with `workingSet` bytes going through its caches, on the pass the
// roofline probes it with.
model::WorkingSetRate probeWorkingSet(std::uint64_t workingSet) {
  const SizeRates r = measureSizeRates({workingSetPass(workingSet)}, record::kCalibrateReduceType,
                                       job::probedSlotRing())
                          .front();
  return {workingSet,
          1 / r.copyBytesPerSecond,
          1 / r.reduceBytesPerSecond,
          1 / r.slotCopyInBytesPerSecond,
          1 / r.slotCopyOutBytesPerSecond,
          1 / r.slotReduceBytesPerSecond};
}

// This rank's side of one round's measurement. Returns rank 0's time (link, kernel) or this pair's
// rate (pairs), 0 where the rank took no part.
double measureItem(const CalibrateConfig& c, transport::Transport& t, const Item& item,
                   std::byte* buffer, KernelBuffers& k) {
  const int r = t.rank();
  const bool initiator = r % 2 == 0;
  switch (item.kind) {
    case Item::Kind::Link: {
      if (r > 1) return 0;
      // The best one-way time: the transport's own cost. Not the median: on a shared machine a
      // waiting rank that was put to sleep takes ~50 us to wake, which is the scheduler's delay,
      // not the transport's (docs/MODEL_VS_MEASURED.md).
      const auto oneWay = exec::pingPong(t, initiator ? r + 1 : r - 1, initiator, buffer,
                                         item.value, 2, c.iterations, c.timeout);
      return initiator ? *std::min_element(oneWay.begin(), oneWay.end()) : 0;
    }
    case Item::Kind::Reduce:
      return r == 0 ? timeKernel(c, k.a.data(), k.a, k.b, item.value) : 0;
    case Item::Kind::ReduceOutOfPlace:
      return r == 0 ? timeKernel(c, k.out.data(), k.a, k.b, item.value) : 0;
    case Item::Kind::Pairs: {
      if (r >= 2 * static_cast<int>(item.value)) return 0;
      const std::uint64_t bytes = concurrencyBytes(c);
      // Medians here: the pairs contend, and the best sample of each would come from moments when
      // the others happened to be idle.
      const auto oneWay = exec::pingPong(t, initiator ? r + 1 : r - 1, initiator, buffer, bytes, 2,
                                         c.iterations, c.timeout);
      return initiator ? static_cast<double>(bytes) / median(oneWay) : 0;
    }
    case Item::Kind::WorkingSet:
      return 0;  // rank 0's probe keeps both its rates (calibrateRank)
  }
  return 0;
}

std::string stageName(const Item& item) {
  switch (item.kind) {
    case Item::Kind::Link:
      return "ping-pong " + formatSize(item.value);
    case Item::Kind::Reduce:
      return "reduce " + formatSize(item.value);
    case Item::Kind::ReduceOutOfPlace:
      return "reduce out of place " + formatSize(item.value);
    case Item::Kind::Pairs:
      return fmt::format("concurrency {} pair{}", item.value, item.value == 1 ? "" : "s");
    case Item::Kind::WorkingSet:
      return "working set " + formatSize(item.value);
  }
  return "";
}

}  // namespace

record::FittedSizes fitInCache(const std::map<std::uint64_t, std::vector<double>>& bySize,
                               double inCacheBytes) {
  record::FittedSizes f;
  std::vector<double> x, y;
  const bool narrow =
      inCacheBytes > 0 && bySize.size() > 1 && std::next(bySize.begin())->first <= inCacheBytes;
  for (const auto& [bytes, times] : bySize) {
    for (double s : times) {
      f.sizes.push_back(bytes);
      f.seconds.push_back(s);
      if (narrow && bytes > inCacheBytes) continue;
      x.push_back(static_cast<double>(bytes));
      y.push_back(s);
    }
  }
  f.fit = model::fitLineRelative(x, y);
  if (narrow && !(f.fit.slope > 0))
    f.fit = model::fitLineRelative({f.sizes.begin(), f.sizes.end()}, f.seconds);
  return f;
}

namespace {

// The largest ping-pong, kernel and out-of-place kernel sizes whose own working set is within the
// knee: a ping-pong's is both ranks' buffers where they share the cache, the kernel's its two
// inputs (in place) or three buffers (out of place). All 0 without a knee.
struct InCacheSizes {
  double link = 0, kernel = 0, outOfPlace = 0;
};
InCacheSizes inCacheSizes(const record::Calibration& c) {
  model::ModelParams host;
  host.host.cores = c.cores;
  host.memory.cache_cores = c.cacheCores;
  const double knee = c.cacheKneeBytes;
  return {knee / model::ranksSharingCache(host, 2), knee / 2, knee / 3};
}

// The median per-byte time over the sizes beyond `inCacheBytes` (medians over rounds), `fallback`
// where calibrate measured none there.
double perByteBeyond(const record::FittedSizes& f, double inCacheBytes, double fallback) {
  std::vector<double> x, perByte;
  for (const record::SizeSummary& s : record::summarize(f)) {
    x.push_back(static_cast<double>(s.bytes));
    perByte.push_back(s.medianSeconds / static_cast<double>(s.bytes));
  }
  return model::medianWithin(x, perByte, inCacheBytes, std::numeric_limits<double>::infinity(),
                             fallback);
}

// Medians over rounds of rank 0's probes, each rate on its own, smallest working set first.
std::vector<model::WorkingSetRate> workingSetRates(
    const std::map<std::uint64_t, std::vector<model::WorkingSetRate>>& probes) {
  std::vector<model::WorkingSetRate> out;
  for (const auto& [bytes, rounds] : probes) {
    model::WorkingSetRate& entry = out.emplace_back(model::WorkingSetRate{.bytes = bytes});
    for (const auto& [name, rate] : model::kWorkingSetRateFields) {
      std::vector<double> perRound;
      for (const model::WorkingSetRate& round : rounds) perRound.push_back(round.*rate);
      entry.*rate = median(perRound);
    }
  }
  return out;
}

}  // namespace

std::vector<std::uint64_t> workingSetSizes(const CalibrateConfig& c) {
  const std::uint64_t top =
      std::clamp<std::uint64_t>(4 * c.maxBytes, 256 * 1024, kRateMaxWorkingSetBytes);
  return geometricSizes(64 * 1024, top, 2);
}

void validate(const CalibrateConfig& c) {
  job::findTransport(c.transport);
  const MeasureLabels& l = c.labels;
  if (c.ranks < 2)
    throwInvalid(l.ranks + " " + std::to_string(c.ranks) +
                 ": calibration needs at least 2 ranks for a ping-pong");
  if (c.iterations < 3)
    throwInvalid(l.iterations + " " + std::to_string(c.iterations) + ": must be >= 3 for a median");
  if (c.rounds < 1) throwInvalid(l.rounds + " " + std::to_string(c.rounds) + ": must be >= 1");
  if (c.minBytes == 0 || c.minBytes > c.maxBytes || c.maxBytes > (1ull << 30)) {
    throwInvalid(l.minBytes + " " + std::to_string(c.minBytes) + " and " + l.maxBytes + " " +
                 std::to_string(c.maxBytes) + ": need 0 < min <= max <= 1G");
  }
  if (linkSizes(c).size() < 3) {
    throwInvalid("calibration needs at least 3 sizes: widen " + l.minBytes + " and " + l.maxBytes +
                 " (sizes grow x4)");
  }
}

ConcurrencyFigure concurrencyFigure(const std::vector<record::ConcurrencyStep>& steps) {
  if (steps.size() < 2) return {0, false};
  ConcurrencyFigure figure{1, false};
  for (const record::ConcurrencyStep& s : steps) {
    // k pairs cannot move more than k times one pair's bytes: a ratio above k says the single
    // pair was measured in a slow moment, not that the host has more than k paths.
    const double ratio = std::min(s.overOnePair, static_cast<double>(s.pairs));
    figure.capped = figure.capped || s.overOnePair > s.pairs;
    figure.transfers = std::max(figure.transfers, ratio);
  }
  return figure;
}

std::uint64_t fusedReduceFromBytes(const transport::Transport& t) {
  // shm: from its single-copy size on, the receiver reads the sender's buffer (below it, messages
  // go through slots: a copy in, then a reducing copy out). inproc reads the sender's buffer in
  // place at every size too, but priced as fused its AllReduce errors grew from 0.09-0.18 to
  // 0.55-0.63 (docs/MODEL_VS_MEASURED.md): whichever rank matches a pair does the pass, so one
  // thread can do both directions' work; it keeps the copy-plus-reduce price. tcp copies off the
  // socket even where it reduces on receive; mpi's path is the MPI library's.
  const job::TransportEntry* entry = job::transportNamed(t.name());
  if (entry && entry->fusesFromSingleCopy && t.singleCopyBytes() != UINT64_MAX)
    return t.singleCopyBytes();
  return 0;
}

record::Calibration calibrateRank(const CalibrateConfig& config, transport::Transport& t,
                                  const ProgressCallback& progress) {
  validate(config);
  const int ranks = t.size();
  if (ranks < 2)
    throwInvalid("calibration needs at least 2 ranks for a ping-pong; this job has " +
                 std::to_string(ranks));
  Communicator comm(t);
  // The meeting after a measurement waits for the slowest rank's whole measurement: up to
  // 2 (iterations + 2) messages of `timeout` each (a day at most), not one message's timeout.
  CollectiveOptions meet;
  meet.exec.timeout = std::min<std::chrono::milliseconds>(
      config.timeout * (2 * (static_cast<std::int64_t>(config.iterations) + 2)),
      std::chrono::hours(24));
  // Allocated and touched once, before anything is timed.
  // The ping-pong buffer comes from the transport's shared memory where it has one, as bench's
  // do: over shm a send from it is read in place by the receiver (one copy, not two), and the
  // profile must describe the path the job's transfers take.
  const std::size_t bufferBytes = std::max(config.maxBytes, concurrencyBytes(config));
  std::vector<std::byte> ordinary;
  auto* buffer = static_cast<std::byte*>(t.allocateShared(bufferBytes));
  if (!buffer) {
    ordinary.assign(bufferBytes, std::byte{1});
    buffer = ordinary.data();
  }
  const std::uint64_t reduceMax = t.rank() == 0 ? reduceSizes(config).back() / 4 : 0;
  KernelBuffers kernelBuffers{std::vector<float>(reduceMax, 1.0f),
                              std::vector<float>(reduceMax, 2.0f), std::vector<float>(reduceMax)};
  const std::size_t perRound = roundOrder(config, ranks, 0).size();
  ProgressMeter meter(t.rank() == 0 ? progress : ProgressCallback{}, perRound * config.rounds);
  std::map<std::uint64_t, std::vector<double>> link, kernel, kernelOutOfPlace;
  std::map<int, std::vector<double>> pairRates;
  std::map<std::uint64_t, std::vector<model::WorkingSetRate>> probes;  // rank 0's
  for (int round = 0; round < config.rounds; ++round) {
    for (const Item& item : roundOrder(config, ranks, round)) {
      meter.stage(stageName(item));
      if (item.kind == Item::Kind::WorkingSet && t.rank() == 0)
        probes[item.value].push_back(probeWorkingSet(item.value));
      double value = measureItem(config, t, item, buffer, kernelBuffers);
      // Every rank meets here before the next measurement; the sum brings the pairs' rates (and
      // rank 0's own times, the others adding 0) to every rank.
      comm.allreduce(&value, &value, 1, DataType::Float64, ReduceOp::Sum, meet);
      if (item.kind == Item::Kind::Link) link[item.value].push_back(value);
      if (item.kind == Item::Kind::Reduce) kernel[item.value].push_back(value);
      if (item.kind == Item::Kind::ReduceOutOfPlace) kernelOutOfPlace[item.value].push_back(value);
      if (item.kind == Item::Kind::Pairs) pairRates[static_cast<int>(item.value)].push_back(value);
      meter.advance();
    }
  }
  record::Calibration out;
  out.ranks = ranks;
  out.rounds = config.rounds;
  out.fusedReduceFromBytes = fusedReduceFromBytes(t);
  out.workingSets = workingSetRates(probes);
  std::vector<double> sets, perByte;
  for (const model::WorkingSetRate& w : out.workingSets) {
    sets.push_back(static_cast<double>(w.bytes));
    perByte.push_back(w.copySecondsPerByte + w.reduceSecondsPerByte);
  }
  out.hostCaches = reportedCaches();
  out.cacheKneeBytes = model::memoryKnee(sets, perByte, privateCacheBytes(out.hostCaches));
  out.cores = hostCores();
  out.cacheCores = cacheCoresOf(out.cacheKneeBytes, out.hostCaches, out.cores);
  // The lines describe the cache.
  const InCacheSizes inCache = inCacheSizes(out);
  out.link = fitInCache(link, inCache.link);
  out.reduce = fitInCache(kernel, inCache.kernel);
  out.reduceOutOfPlace = fitInCache(kernelOutOfPlace, inCache.outOfPlace);
  out.concurrencyBytes = concurrencyBytes(config);
  const double single = median(pairRates.at(1));
  for (const auto& [pairs, rates] : pairRates) {
    const double rate = median(rates);
    out.concurrency.push_back({pairs, rate, rate / single});
  }
  const ConcurrencyFigure figure = concurrencyFigure(out.concurrency);
  out.concurrentTransfers = figure.transfers;
  out.concurrencyCapped = figure.capped;
  return out;
}

record::Calibration calibrate(const CalibrateConfig& config, const ProgressCallback& progress) {
  validate(config);
  const std::unique_ptr<transport::ThreadWorld> world =
      job::threadWorld(config.transport, config.ranks);
  record::Calibration out;
  runRankThreads(*world, [&](int r) {
    record::Calibration mine =
        calibrateRank(config, world->transport(r), r == 0 ? progress : ProgressCallback{});
    if (r == 0) out = std::move(mine);
  });
  return out;
}

model::Profile calibratedProfile(const record::Calibration& c, const std::string& transport,
                                 const record::RunInfo& info, const MeasureLabels& labels) {
  const model::LineFit &link = c.link.fit, &red = c.reduce.fit;
  if (link.slope <= 0 || red.slope <= 0) {
    throw Error(ErrorCode::Unreliable,
                fmt::format("the measurement was too noisy to fit: a non-positive slope (beta {} "
                            "s/B, gamma {} s/B); rerun on a quieter machine, with more {} or a "
                            "larger {}",
                            link.slope, red.slope, labels.iterations, labels.maxBytes));
  }
  // Out of place: measured where its fit has a positive slope, else "as in place" (0).
  const double gammaOutOfPlace = std::max(0.0, c.reduceOutOfPlace.fit.slope);
  model::Profile p;
  p.params.link = {std::max(0.0, link.intercept), link.slope};
  p.params.reduce = {red.slope, gammaOutOfPlace};
  p.params.host = {c.concurrentTransfers, static_cast<double>(c.cores)};
  p.params.fusion.fused_reduce_from_bytes = static_cast<double>(c.fusedReduceFromBytes);
  const double knee = c.cacheKneeBytes;
  if (knee > 0) {
    std::vector<double> sets, copy, reduce;
    for (const model::WorkingSetRate& w : c.workingSets) {
      sets.push_back(static_cast<double>(w.bytes));
      copy.push_back(w.copySecondsPerByte);
      reduce.push_back(w.reduceSecondsPerByte);
    }
    // Where calibrate timed no size beyond the knee: beta and gamma plus what a byte's copy and
    // reduction cost more beyond it than in the cache just below it.
    const auto extra = [&](const std::vector<double>& perByte) {
      const double inCache = model::medianWithin(sets, perByte, knee / 8, knee, 0);
      return std::max(0.0, model::medianWithin(sets, perByte, knee, 1e300, 0) - inCache);
    };
    const double copyExtra = extra(copy), reduceExtra = extra(reduce);
    const InCacheSizes inCache = inCacheSizes(c);
    p.params.memory = {knee,
                       perByteBeyond(c.link, inCache.link, link.slope + copyExtra),
                       perByteBeyond(c.reduce, inCache.kernel, red.slope + reduceExtra),
                       gammaOutOfPlace > 0 ? perByteBeyond(c.reduceOutOfPlace, inCache.outOfPlace,
                                                           gammaOutOfPlace + reduceExtra)
                                           : 0,
                       static_cast<double>(c.cacheCores),
                       false};
  }
  p.hostCaches = c.hostCaches;
  p.workingSetRates = c.workingSets;
  p.transport = transport;
  p.host = info.host;
  p.ringlabVersion = info.version;
  p.date = info.date;
  p.linkFitR2 = link.r2;
  p.reduceFitR2 = red.r2;
  p.jobRanks = c.ranks;
  p.placement = info.placement;
  p.rounds = c.rounds;
  if (std::isfinite(link.interceptHalfWidth95) && std::isfinite(link.slopeHalfWidth95) &&
      std::isfinite(red.slopeHalfWidth95)) {
    p.halfWidths95 = model::Profile::HalfWidths95{link.interceptHalfWidth95, link.slopeHalfWidth95,
                                                  red.slopeHalfWidth95};
  }
  p.unstable = model::unstableReasons(link, "ping-pong", "alpha", "beta");
  for (std::string& reason : model::unstableReasons(red, "kernel", "", "gamma"))
    p.unstable.push_back(std::move(reason));
  return p;
}

}  // namespace ringlab::measure
