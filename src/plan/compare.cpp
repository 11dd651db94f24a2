#include "ringlab/plan/compare.hpp"

#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::plan {

std::string capMiB(std::uint64_t capBytes) {
  return fmt::format("{:.4g}", capBytes / 1048576.0);
}

double aboveOptimum(double iteration_s, const PlanComparison& comparison) {
  return iteration_s / comparison.best().iteration_s - 1;
}

PlanComparison comparePlans(const Timeline& timeline, const BucketCost& cost,
                            const CompareOptions& options) {
  struct Candidate {
    std::string name, note;
    std::function<std::vector<Bucket>()> buckets;
  };
  PlanComparison c;
  const std::size_t n = timeline.tensors.size();
  std::vector<Candidate> candidates{
      {"optimal", "dynamic programme over contiguous buckets in ready order",
       [&] { return bucketsFromStarts(c.optimal.starts, n); }},
      {"ddp-default", "bucket_cap_mb 25, first bucket 1 MiB",
       [&] { return ddpBuckets(timeline, kDdpDefaultCapBytes); }},
      {"ddp-best-cap", "", [&] { return ddpBuckets(timeline, c.ddpCap.capBytes); }},
      {"horovod-default", "fusion threshold 128 MiB, cycle 1 ms",
       [&] { return horovodBuckets(timeline, cost); }},
      {"per-tensor", "one bucket per gradient", [&] { return perTensorBuckets(timeline); }},
      {"single", "everything in one bucket", [&] { return singleBucket(timeline); }},
      {"mg-wfbp", "greedy merge (Shi et al. 2019)", [&] { return mgwfbpBuckets(timeline, cost); }}};
  for (std::uint64_t capBytes : options.ddpCapBytes) {
    candidates.push_back({"ddp-cap-" + capMiB(capBytes), "bucket_cap_mb " + capMiB(capBytes),
                          [&, capBytes] { return ddpBuckets(timeline, capBytes); }});
  }
  if (options.evaluate) {
    candidates.push_back({"evaluated",
                          fmt::format("bucket starts {}", fmt::join(*options.evaluate, ",")),
                          [&] { return bucketsFromStarts(*options.evaluate, n); }});
  }
  ProgressMeter meter(options.progress, 2 + candidates.size());
  meter.stage("optimal buckets");
  c.optimal = optimalBuckets(timeline, cost);
  meter.advance();
  meter.stage("ddp cap search");
  c.ddpCap = bestDdpCap(timeline, cost);
  candidates[2].note = "bucket_cap_mb " + capMiB(c.ddpCap.capBytes);  // ddp-best-cap's
  meter.advance();
  for (Candidate& candidate : candidates) {
    meter.stage(candidate.name);
    std::vector<Bucket> buckets = candidate.buckets();
    PredictedIteration p = predict(timeline, buckets, cost);
    c.plans.push_back(
        {std::move(candidate.name), std::move(candidate.note), std::move(buckets), std::move(p)});
    meter.advance();
  }
  c.communicationHidden = sameIteration(
      c.best().iteration_s, timeline.forward_s + timeline.backwardEnd_s + timeline.optimizerStep_s);
  return c;
}

std::vector<std::size_t> parseBucketStarts(std::string_view text, std::string_view what) {
  std::vector<std::size_t> starts;
  for (const std::string& cell : splitList(text)) {
    try {
      starts.push_back(static_cast<std::size_t>(parseInteger(cell, "", 0, 999999999999)));
    } catch (const Error&) {
      throwInvalid(fmt::format("{} '{}': '{}' is not a bucket start index (whole number >= 0)",
                               what, text, cell));
    }
  }
  return starts;
}

std::vector<std::uint64_t> parseDdpCaps(std::string_view text, std::string_view what) {
  std::vector<std::uint64_t> caps;
  for (const std::string& cell : splitList(text)) {
    double mb = -1;
    try {
      mb = parseNumber(cell, "bucket_cap_mb");
    } catch (const Error&) {
    }
    if (!(mb > 0 && mb < 1e9)) {
      throwInvalid(fmt::format("{} '{}': '{}' is not a bucket_cap_mb > 0", what, text, cell));
    }
    caps.push_back(static_cast<std::uint64_t>(mb * 1048576.0));
  }
  return caps;
}

std::string describeCopies(const Timeline& timeline, bool views,
                           std::string_view copyBandwidthWhat) {
  if (views) return "gradients are views into the buckets: no copy";
  if (timeline.copyBytesPerSecond > 0) {
    return fmt::format(
        "gradients copied into buckets on the backward thread and back after the last bucket at "
        "{:.2f} GB/s",
        timeline.copyBytesPerSecond / 1e9);
  }
  return fmt::format(
      "copy not priced (no measured copy bandwidth: {} or the timeline's copy_bandwidth_GBps)",
      copyBandwidthWhat);
}

}  // namespace ringlab::plan
