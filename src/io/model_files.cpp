#include "ringlab/io/model_files.hpp"

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/io/topology_files.hpp"
#include "ringlab/model/params.hpp"

namespace ringlab::io {

model::Profile readProfile(const std::string& path) {
  return model::profileFromJson(readJsonFile(path, "profile", kProfileInput), path);
}

model::DecisionTable readDecisionTable(const std::string& path) {
  return model::decisionTableFromJson(readJsonFile(path, "decision table", kDecisionTableInput),
                                      path);
}

bool ModelSource::overridden() const {
  return !alpha.empty() || !bandwidth.empty() || !gamma.empty() || !concurrency.empty();
}

namespace {

double concurrencyValue(const std::string& text) {
  double value = -1;
  try {
    value = parseNumber(text, "--concurrency");
  } catch (const Error&) {
    throwInvalid("--concurrency '" + text + "': a number >= 0 (0: unlimited)");
  }
  return model::checkedParam(model::kConcurrencyRange, value, "--concurrency '" + text + "'");
}

// A quantity typed after `flag`, its error naming the flag: "--alpha 5: a time needs a unit, ...".
double quantity(const char* flag, const std::string& text, double (*parse)(std::string_view)) {
  try {
    return parse(text);
  } catch (const Error& e) {
    throwInvalid(std::string(flag) + " " + e.what());
  }
}

// The same, checked against the coefficient's range (model/params.hpp).
double coefficient(const char* flag, const std::string& text, double (*parse)(std::string_view),
                   const model::ParamRange& range) {
  return model::checkedParam(range, quantity(flag, text, parse), std::string(flag) + " " + text);
}

// beta is per direction: a bandwidth that counts both directions is twice the usable one.
void applyBandwidth(const ModelSource& s, ResolvedModel& r) {
  const double bw = quantity("--bw", s.bandwidth, parseBandwidth);
  model::ModelParams& m = r.profile.params;
  m.link.beta_s_per_byte = model::checkedParam(
      model::kBetaRange, s.bandwidthCounts == "send+recv" ? 2 / bw : 1 / bw, "--bw " + s.bandwidth);
  const double perDirection = 1 / m.link.beta_s_per_byte;
  if (s.bandwidthCounts == "send" && s.volume == "send+recv") {
    r.warnings.push_back(fmt::format(
        "warning: dividing the send+recv volume by a per-direction bandwidth ({:.2f} GB/s) counts "
        "every byte twice on a full-duplex link; the model divides the send volume by it",
        perDirection / 1e9));
  } else if (s.bandwidthCounts == "send+recv" && s.volume == "send") {
    r.warnings.push_back(fmt::format(
        "warning: {} counts both directions of a full-duplex link; dividing a send-only volume by "
        "it halves the cost. The model uses {:.2f} GB/s per direction with the send volume",
        s.bandwidth, perDirection / 1e9));
  }
}

}  // namespace

ResolvedModel resolveModel(const ModelSource& s) {
  for (const auto& [flag, value] :
       {std::pair{"--bw-counts", s.bandwidthCounts}, std::pair{"--volume", s.volume}}) {
    if (value != "send" && value != "send+recv") {
      throwInvalid(std::string(flag) + " '" + value + "': valid are send and send+recv");
    }
  }
  ResolvedModel r;
  r.profile = s.profilePath.empty() ? model::defaultProfile() : readProfile(s.profilePath);
  r.source =
      s.profilePath.empty() ? "stated defaults (not calibrated)" : "profile " + s.profilePath;
  if (s.overridden()) r.source += ", overridden by flags";
  model::ModelParams& m = r.profile.params;
  if (!s.concurrency.empty()) m.host.concurrent_transfers = concurrencyValue(s.concurrency);
  if (!s.alpha.empty())
    m.link.alpha_s = coefficient("--alpha", s.alpha, parseSeconds, model::kAlphaRange);
  if (!s.bandwidth.empty()) applyBandwidth(s, r);
  if (!s.gamma.empty()) {
    m.reduce.gamma_s_per_byte =
        coefficient("--gamma", s.gamma, parseSecondsPerByte, model::kGammaRange);
    // One gamma given: it prices in-place and out-of-place reductions alike.
    m.reduce.gamma_out_of_place_s_per_byte = 0;
  }
  return r;
}

std::optional<int> profileRanks(const std::string& path) {
  const nlohmann::json j = readJsonFile(path, "profile", kProfileInput);
  if (!j.is_object() || !j.contains("ranks")) return std::nullopt;
  const nlohmann::json& field = j["ranks"];
  // Read wide and checked before narrowing: 2^32 + 2 is not p = 2.
  return static_cast<int>(jsonWhole(field, "profile " + path, "ranks", 1, kMaxRanks));
}

void checkProfileRanks(const std::string& path, int ranks) {
  if (path.empty()) return;
  const std::optional<int> measured = profileRanks(path);
  if (measured && *measured != ranks) {
    throwInvalid(fmt::format(
        "profile {}: measured for p = {}, not -p {}; calibrate for this p or pass -p {}", path,
        *measured, ranks, *measured));
  }
}

}  // namespace ringlab::io
