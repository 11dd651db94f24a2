#include "ringlab/gpu/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "ringlab/model/fit.hpp"

namespace ringlab::gpu {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;
// Below this share of the predicted bus bandwidth, rows of 64 MiB and more are called short of
// the hardware; above its inverse, beyond what the system as described allows.
constexpr double kShortOfHardware = 0.70;
constexpr double kBeyondHardware = 1.30;
// Medium and small rows are called slow beyond this multiple of the predicted time: the margin
// beyond which a band is called off (docs/GPU.md).
constexpr double kMediumSlow = 2.0;
constexpr double kSmallSlow = 2.0;

std::string causesFor(Regime regime, const GpuSystem& s) {
  switch (regime) {
    case Regime::Network:
      return fmt::format(
          "is every NIC in use (NCCL_IB_HCA; NCCL_DEBUG=INFO lists the NICs each channel takes), "
          "is GPUDirect RDMA on (\"GDRDMA\" in the channel lines; NCCL_NET_GDR_LEVEL), do the NICs "
          "link at {:.0f} Gb/s, and are the ranks spread {} per node as assumed?",
          s.nicBandwidth_Bps * 8e-9, s.ranksPerNode);
    case Regime::NVLink:
      return "are all NVLinks up (nvidia-smi nvlink --status), is NCCL_P2P_DISABLE or "
             "NCCL_P2P_LEVEL set, can the ranks map each other's memory (containers need a shared "
             "IPC namespace), and is NVLink SHARP off (NCCL_NVLS_ENABLE) where the system has it?";
    case Regime::PCIe:
      return "is PCIe peer to peer working (ACS off on the switches, IOMMU in passthrough; "
             "NCCL_P2P_DISABLE unset), and do the GPUs link at full width and generation "
             "(nvidia-smi -q, \"Link Width\")?";
    case Regime::Latency:
    case Regime::ProtocolSwitch:
      return "";
  }
  return "";
}

// The candidate the large rows match best, when it is not the chosen one: NCCL ran another
// algorithm or protocol than its defaults would (NVLS off, a forced NCCL_ALGO or NCCL_PROTO).
std::string bestMatchingCandidate(const std::vector<VerdictRow>& large) {
  std::map<std::string, std::vector<double>> errors;
  for (const VerdictRow& r : large) {
    for (const NcclChoice& c : r.predicted.candidates) {
      const std::string key =
          fmt::format("{}/{}", ncclAlgorithmName(c.algorithm), ncclProtocolName(c.protocol));
      errors[key].push_back(std::fabs(r.measuredUs / (c.time_s * 1e6) - 1));
    }
  }
  std::string best;
  double bestError = 1e300;
  for (const auto& [key, e] : errors) {
    if (e.size() != large.size()) continue;
    const double m = model::median(e);
    if (m < bestError) {
      bestError = m;
      best = key;
    }
  }
  const NcclChoice& chosen = large.front().predicted.chosen;
  const std::string chosenKey =
      fmt::format("{}/{}", ncclAlgorithmName(chosen.algorithm), ncclProtocolName(chosen.protocol));
  if (best.empty() || best == chosenKey || bestError > 0.15) return "";
  return fmt::format("they match NCCL's {} (median error {:.2f}) rather than the {} it would pick",
                     best, bestError, chosenKey);
}

}  // namespace

double VerdictRow::measuredBusBw_Bps(int ranks) const {
  return double(bytes) / (measuredUs * 1e-6) * 2.0 * (ranks - 1) / ranks;
}

const char* bandName(Band band) {
  switch (band) {
    case Band::Small:
      return "< 1 MiB";
    case Band::Medium:
      return "1-64 MiB";
    case Band::Large:
      return ">= 64 MiB";
  }
  return "?";
}

Band bandOf(std::uint64_t bytes) {
  return bytes < kMiB ? Band::Small : bytes < 64 * kMiB ? Band::Medium : Band::Large;
}

Verdict judge(const NcclModel& model, const std::vector<MeasuredTime>& rows) {
  Verdict v;
  const GpuSystem& s = model.system();
  const int p = s.ranks();
  for (const MeasuredTime& m : rows) {
    if (m.bytes == 0 || m.timeUs <= 0) continue;
    v.rows.push_back({m.bytes, m.timeUs, model.predict(m.bytes)});
  }
  std::vector<VerdictRow> byBand[3];
  for (const VerdictRow& r : v.rows) byBand[static_cast<int>(bandOf(r.bytes))].push_back(r);
  for (Band band : {Band::Small, Band::Medium, Band::Large}) {
    const std::vector<VerdictRow>& in = byBand[static_cast<int>(band)];
    if (in.empty()) continue;
    std::vector<double> errors, ratios;
    for (const VerdictRow& r : in) {
      errors.push_back(std::fabs(r.ratio() - 1));
      ratios.push_back(r.ratio());
    }
    v.bands.push_back(
        {band, static_cast<int>(in.size()), model::median(errors), model::median(ratios)});
  }

  const auto summary = [&](Band band) -> const BandSummary* {
    for (const BandSummary& b : v.bands)
      if (b.band == band) return &b;
    return nullptr;
  };
  if (const BandSummary* large = summary(Band::Large)) {
    const std::vector<VerdictRow>& in = byBand[static_cast<int>(Band::Large)];
    const VerdictRow& last = in.back();
    const double share = 1.0 / large->medianRatio;
    const NcclChoice& c = last.predicted.chosen;
    const std::string expected =
        fmt::format("{:.0f} GB/s busbw ({}/{} on {} channels, limited by {})", c.busBw_Bps / 1e9,
                    ncclAlgorithmName(c.algorithm), ncclProtocolName(c.protocol), c.channels,
                    model.ringBottleneck());
    const std::string match = bestMatchingCandidate(in);
    if (share < kShortOfHardware) {
      v.flagged = true;
      std::string finding = fmt::format(
          "from 64 MiB, busbw is {:.0f}% of what this system should give: {:.0f} GB/s measured "
          "at {} against {}",
          share * 100, last.measuredBusBw_Bps(p) / 1e9, last.bytes, expected);
      if (!match.empty()) finding += "; " + match;
      const std::string causes = causesFor(last.predicted.regime, s);
      if (!causes.empty())
        finding += ". " + std::string(1, std::toupper(causes[0])) + causes.substr(1);
      v.findings.push_back(finding);
    } else if (share > kBeyondHardware) {
      v.flagged = true;
      v.findings.push_back(fmt::format(
          "from 64 MiB, busbw is {:.0f}% of what the system as described allows ({}): it has more "
          "than the spec says (more NICs or faster ones, NVLink SHARP, SHARP in the network), or "
          "ran on fewer nodes than assumed; check the system spec",
          share * 100, expected));
    } else {
      v.findings.push_back(fmt::format(
          "from 64 MiB, busbw is {:.0f}% of the model's {}: the hardware delivers what it should",
          share * 100, expected));
    }
    // Bus bandwidth above what one GPU's share of the network or fabric carries is expected of
    // trees, NVLS and SHARP: busbw counts a ring's traffic, and they move less per GPU.
    const double perGpuLink =
        model.networkBound() ? model.ringBottleneck_Bps() : s.intraBandwidth_Bps();
    if (last.measuredBusBw_Bps(p) > 1.02 * perGpuLink &&
        last.predicted.chosen.algorithm != NcclAlgorithm::Ring) {
      v.findings.push_back(fmt::format(
          "busbw {:.0f} GB/s is above the {:.0f} GB/s a ring could get ({}), as expected: "
          "{} moves less data over those links than the ring that busbw's formula assumes",
          last.measuredBusBw_Bps(p) / 1e9, perGpuLink / 1e9, model.ringBottleneck(),
          ncclAlgorithmName(last.predicted.chosen.algorithm)));
    }
  }
  if (const BandSummary* medium = summary(Band::Medium);
      medium && medium->medianRatio > kMediumSlow) {
    v.flagged = true;
    v.findings.push_back(fmt::format(
        "from 1 to 64 MiB, rows take {:.1f}x the predicted time: NCCL's pipelining is not "
        "reaching its bandwidth (too few channels: NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS; a "
        "forced NCCL_PROTO or NCCL_ALGO; the proxy thread starved of CPU)",
        medium->medianRatio));
  }
  if (const BandSummary* small = summary(Band::Small); small && small->medianRatio > kSmallSlow) {
    v.flagged = true;
    v.findings.push_back(fmt::format(
        "below 1 MiB, rows take {:.1f}x the latency NCCL's figures give: launch and "
        "synchronisation overheads (GPU clocks, CPU frequency scaling, a busy host), or a "
        "network path with high latency (TCP sockets instead of RDMA)",
        small->medianRatio));
  }
  return v;
}

}  // namespace ringlab::gpu
