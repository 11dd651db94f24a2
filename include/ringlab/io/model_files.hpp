#pragma once
// Model parameters from files and from text as users type it: a profile (`ringlab calibrate`),
// a decision table (`ringlab tune`), and the parameters a command predicts with: the profile
// overridden by a given alpha, bandwidth, gamma or concurrency, with the volume-convention check of
// the seed (a bandwidth that counts both directions must not be paired with a send-only volume, nor
// the reverse).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/model/decision_table.hpp"
#include "ringlab/model/profile.hpp"

namespace ringlab::io {

// Reads and checks a profile file; throws InvalidArgument naming the path and the problem.
model::Profile readProfile(const std::string& path);

// Reads and checks a decision table written by `ringlab tune`; throws InvalidArgument naming the
// path and the problem.
model::DecisionTable readDecisionTable(const std::string& path);

// What a bandwidth counts, and which volume a user divides by it: one direction of a full-duplex
// link, or both.
enum class VolumeCount { Send, SendRecv };

// The model's parameters a run predicts with, typed: a profile, overridden value by value.
struct ModelSource {
  std::string profilePath;  // empty: the stated defaults
  std::optional<double> alpha_s, bandwidth_Bps, gamma_s_per_byte, concurrency;  // unset: not given
  VolumeCount bandwidthCounts = VolumeCount::Send;
  VolumeCount volume = VolumeCount::Send;  // which volume the user divides by the bandwidth
  bool overridden() const;                 // any of alpha, bandwidth, gamma, concurrency given
};

// Labels: how the library names a user's inputs in its errors. The library never names a
// front end's option: a function that reads user input takes the caller's name for it (`what`,
// or a struct of labels such as this one) and every error starts with it. Each front end fills
// the labels in its own vocabulary (the CLI its flags, Python its keyword arguments, the lab its
// fields); the defaults are the library's own words.
struct ModelLabels {
  std::string profile = "the profile";
  std::string alpha = "the latency alpha";
  std::string bandwidth = "the bandwidth";
  std::string gamma = "the reduction cost gamma";
  std::string concurrency = "the concurrency";
  std::string bandwidthCounts = "what the bandwidth counts";
  std::string volume = "the volume";
  std::string ranks = "p =";  // "not p = 4; ... or pass p = 2"
};

// The model's inputs as a user types them: "5us", "12.5GB/s", "0.05ns/B" or its rate "20GB/s", a
// concurrency "4" (0: unlimited), "send" or "send+recv"; empty: not given. The one parser every
// front end goes through; each value checked against its range (model/params.hpp).
struct ModelText {
  std::string profile, alpha, bandwidth, gamma, concurrency;
  std::string bandwidthCounts = "send", volume = "send";
};
// Throws InvalidArgument naming the input by its label and the value that is wrong.
ModelSource parseModelSource(const ModelText& text, const ModelLabels& labels = {});

struct ResolvedModel {
  model::Profile profile;
  std::string source;  // "profile p.json, overridden by given parameters", "stated defaults ..."
  std::vector<std::string> warnings;  // convention mismatches, one line each
};

// Reads the profile and applies the overrides. Throws InvalidArgument naming the input by its
// label.
ResolvedModel resolveModel(const ModelSource& source, const ModelLabels& labels = {});

// A profile measured for one p says so in an optional "ranks" field (tools/ddp_bucket_check.py
// writes one); `ringlab calibrate`'s point-to-point profiles hold for any p and have none. Throws
// InvalidArgument when the profile at `path` (none when empty) was measured for another p;
// `ranksWhat` is the caller's name for p ("p =" in the library's words).
void checkProfileRanks(const std::string& path, int ranks, std::string_view ranksWhat = "p =");
// That "ranks" field of the profile at `path`; none when it has none.
std::optional<int> profileRanks(const std::string& path);

}  // namespace ringlab::io
