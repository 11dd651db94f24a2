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
  return alpha_s || bandwidth_Bps || gamma_s_per_byte || concurrency;
}

namespace {

double concurrencyValue(const std::string& text, const std::string& what) {
  double value = -1;
  try {
    value = parseNumber(text, what);
  } catch (const Error&) {
    throwInvalid(what + " '" + text + "': a number >= 0 (0: unlimited)");
  }
  return model::checkedParam(model::kConcurrencyRange, value, what + " '" + text + "'");
}

// A quantity typed for the input `what`, its error naming it (the CLI passes its flag, so a bare 5
// for a time is refused under that flag's name: a time needs a unit).
double quantity(const std::string& what, const std::string& text,
                double (*parse)(std::string_view)) {
  try {
    return parse(text);
  } catch (const Error& e) {
    throwInvalid(what + " " + e.what());
  }
}

// The same, checked against the coefficient's range (model/params.hpp).
double coefficient(const std::string& what, const std::string& text,
                   double (*parse)(std::string_view), const model::ParamRange& range) {
  return model::checkedParam(range, quantity(what, text, parse), what + " " + text);
}

VolumeCount volumeCount(const std::string& what, const std::string& text) {
  if (text == "send") return VolumeCount::Send;
  if (text == "send+recv") return VolumeCount::SendRecv;
  throwInvalid(what + " '" + text + "': valid are send and send+recv");
}

// beta is per direction: a bandwidth that counts both directions is twice the usable one.
double betaOf(double bandwidth_Bps, VolumeCount counts) {
  return (counts == VolumeCount::SendRecv ? 2 : 1) / bandwidth_Bps;
}

void applyBandwidth(const ModelSource& s, const ModelLabels& labels, ResolvedModel& r) {
  const double bw = *s.bandwidth_Bps;
  model::ModelParams& m = r.profile.params;
  m.link.beta_s_per_byte =
      model::checkedParam(model::kBetaRange, betaOf(bw, s.bandwidthCounts),
                          fmt::format("{} {:.6g}GB/s", labels.bandwidth, bw / 1e9));
  const double perDirection = 1 / m.link.beta_s_per_byte;
  if (s.bandwidthCounts == VolumeCount::Send && s.volume == VolumeCount::SendRecv) {
    r.warnings.push_back(fmt::format(
        "warning: dividing the send+recv volume by a per-direction bandwidth ({:.2f} GB/s) counts "
        "every byte twice on a full-duplex link; the model divides the send volume by it",
        perDirection / 1e9));
  } else if (s.bandwidthCounts == VolumeCount::SendRecv && s.volume == VolumeCount::Send) {
    r.warnings.push_back(fmt::format(
        "warning: {:.6g}GB/s counts both directions of a full-duplex link; dividing a send-only "
        "volume by it halves the cost. The model uses {:.2f} GB/s per direction with the send "
        "volume",
        bw / 1e9, perDirection / 1e9));
  }
}

}  // namespace

ModelSource parseModelSource(const ModelText& t, const ModelLabels& labels) {
  ModelSource s;
  s.profilePath = t.profile;
  s.bandwidthCounts = volumeCount(labels.bandwidthCounts, t.bandwidthCounts);
  s.volume = volumeCount(labels.volume, t.volume);
  if (!t.concurrency.empty()) s.concurrency = concurrencyValue(t.concurrency, labels.concurrency);
  if (!t.alpha.empty())
    s.alpha_s = coefficient(labels.alpha, t.alpha, parseSeconds, model::kAlphaRange);
  if (!t.bandwidth.empty()) {
    // Checked as the beta it makes, named as typed; resolveModel checks it again once it knows
    // what the bandwidth counts.
    s.bandwidth_Bps = quantity(labels.bandwidth, t.bandwidth, parseBandwidth);
    model::checkedParam(model::kBetaRange, betaOf(*s.bandwidth_Bps, s.bandwidthCounts),
                        labels.bandwidth + " " + t.bandwidth);
  }
  if (!t.gamma.empty())
    s.gamma_s_per_byte =
        coefficient(labels.gamma, t.gamma, parseSecondsPerByte, model::kGammaRange);
  return s;
}

ResolvedModel resolveModel(const ModelSource& s, const ModelLabels& labels) {
  ResolvedModel r;
  r.profile = s.profilePath.empty() ? model::defaultProfile() : readProfile(s.profilePath);
  r.source =
      s.profilePath.empty() ? "stated defaults (not calibrated)" : "profile " + s.profilePath;
  // The same words for every front end: the CLI and Python state the same plan.
  if (s.overridden()) r.source += ", overridden by given parameters";
  model::ModelParams& m = r.profile.params;
  if (s.concurrency)
    m.host.concurrent_transfers =
        model::checkedParam(model::kConcurrencyRange, *s.concurrency, labels.concurrency);
  if (s.alpha_s) m.link.alpha_s = model::checkedParam(model::kAlphaRange, *s.alpha_s, labels.alpha);
  if (s.bandwidth_Bps) applyBandwidth(s, labels, r);
  if (s.gamma_s_per_byte) {
    m.reduce.gamma_s_per_byte =
        model::checkedParam(model::kGammaRange, *s.gamma_s_per_byte, labels.gamma);
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

void checkProfileRanks(const std::string& path, int ranks, std::string_view ranksWhat) {
  if (path.empty()) return;
  const std::optional<int> measured = profileRanks(path);
  if (measured && *measured != ranks) {
    throwInvalid(fmt::format(
        "profile {}: measured for p = {}, not {} {}; calibrate for this p or pass {} {}", path,
        *measured, ranksWhat, ranks, ranksWhat, *measured));
  }
}

}  // namespace ringlab::io
