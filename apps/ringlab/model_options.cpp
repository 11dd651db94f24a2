#include "model_options.hpp"

#include <fstream>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"

namespace ringlab::cli {

void ModelOptions::add(CLI::App& app) {
  app.add_option("--profile", profilePath, "model parameters from `ringlab calibrate`");
  app.add_option("--alpha", alpha, "startup per message, e.g. 5us (overrides the profile)");
  app.add_option("--bw", bandwidth, "bandwidth per direction, e.g. 12.5GB/s or 100Gb/s");
  app.add_option("--gamma", gamma, "reduction cost per byte (0, 0.05ns) or rate (20GB/s)");
  app.add_option("--concurrency", concurrency,
                 "transfers that progress at full speed at once on one host (0: unlimited)");
  app.add_option("--bw-counts", bandwidthCounts,
                 "what --bw counts: send (one direction of a full-duplex link) or send+recv (both)")
      ->capture_default_str();
  app.add_option("--volume", volume, "the volume you divide by --bw: send or send+recv")
      ->capture_default_str();
}

std::string describeModel(const model::Profile& p) {
  const model::ModelParams& m = p.params;
  const std::string concurrency = m.host.concurrent_transfers > 0
                                      ? fmt::format("{:.2f}", m.host.concurrent_transfers)
                                      : std::string("unlimited");
  const std::string memory =
      m.memory.cache_bytes > 0
          ? fmt::format(", beyond {} of cache: beta {:.4f} ns/B, gamma {:.4f} ns/B",
                        formatSize(static_cast<std::uint64_t>(m.memory.cache_bytes)),
                        m.memory.beta_mem_s_per_byte * 1e9, m.memory.gamma_mem_s_per_byte * 1e9)
          : std::string();
  return fmt::format(
      "alpha {}, beta {:.4f} ns/B ({:.2f} GB/s per direction), gamma {:.4f} ns/B, "
      "concurrent transfers {}{}",
      formatMicros(m.link.alpha_s), m.link.beta_s_per_byte * 1e9, 1e-9 / m.link.beta_s_per_byte,
      m.reduce.gamma_s_per_byte * 1e9, concurrency, memory);
}

namespace {

nlohmann::json readJsonFile(const std::string& what, const std::string& path) {
  std::ifstream in(path);
  if (!in) throwInvalid(what + " " + path + ": cannot be read (missing or not readable)");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    throwInvalid(what + " " + path + ": not valid JSON (" + e.what() + ")");
  }
  return j;
}

}  // namespace

model::Profile readProfile(const std::string& path) {
  return model::profileFromJson(readJsonFile("profile", path), path);
}

model::DecisionTable readDecisionTable(const std::string& path) {
  return model::decisionTableFromJson(readJsonFile("decision table", path), path);
}

model::Profile ModelOptions::resolve(std::vector<std::string>& warnings,
                                     std::string& source) const {
  for (const auto& [flag, value] :
       {std::pair{"--bw-counts", bandwidthCounts}, std::pair{"--volume", volume}}) {
    if (value != "send" && value != "send+recv") {
      throwInvalid(std::string(flag) + " '" + value + "': valid are send and send+recv");
    }
  }
  model::Profile p = profilePath.empty() ? model::defaultProfile() : readProfile(profilePath);
  source = profilePath.empty() ? "stated defaults (not calibrated)" : "profile " + profilePath;
  if (!alpha.empty() || !bandwidth.empty() || !gamma.empty() || !concurrency.empty()) {
    source += ", overridden by flags";
  }
  if (!concurrency.empty()) {
    double value = -1;
    try {
      std::size_t used = 0;
      value = std::stod(concurrency, &used);
      if (used != concurrency.size()) value = -1;
    } catch (const std::exception&) {
    }
    if (!(value >= 0 && value < 1e6)) {
      throwInvalid("--concurrency '" + concurrency + "': a number >= 0 (0: unlimited)");
    }
    p.params.host.concurrent_transfers = value;
  }
  if (!alpha.empty()) p.params.link.alpha_s = parseSeconds(alpha);
  if (!bandwidth.empty()) {
    const double bw = parseBandwidth(bandwidth);
    // beta is per direction: a bandwidth that counts both directions is twice the usable one.
    p.params.link.beta_s_per_byte = bandwidthCounts == "send+recv" ? 2 / bw : 1 / bw;
    const double perDirection = 1 / p.params.link.beta_s_per_byte;
    if (bandwidthCounts == "send" && volume == "send+recv") {
      warnings.push_back(fmt::format(
          "warning: dividing the send+recv volume by a per-direction bandwidth ({:.2f} GB/s) "
          "counts "
          "every byte twice on a full-duplex link; the model divides the send volume by it",
          perDirection / 1e9));
    } else if (bandwidthCounts == "send+recv" && volume == "send") {
      warnings.push_back(fmt::format(
          "warning: {} counts both directions of a full-duplex link; dividing a send-only volume "
          "by "
          "it halves the cost. The model uses {:.2f} GB/s per direction with the send volume",
          bandwidth, perDirection / 1e9));
    }
  }
  if (!gamma.empty()) {
    p.params.reduce.gamma_s_per_byte =
        gamma.find("/s") != std::string::npos ? 1 / parseBandwidth(gamma) : parseSeconds(gamma);
  }
  return p;
}

}  // namespace ringlab::cli
