#pragma once
// Model parameters from files and from text as users type it: a profile (`ringlab calibrate`),
// a decision table (`ringlab tune`), and the parameters a command predicts with: the profile
// overridden by --alpha/--bw/--gamma/--concurrency, with the volume-convention check of the seed
// (a bandwidth that counts both directions must not be paired with a send-only volume, nor the
// reverse).
#include <optional>
#include <string>
#include <vector>

#include "ringlab/model/decision_table.hpp"
#include "ringlab/model/profile.hpp"

namespace ringlab::io {

// Reads and checks a profile file; throws InvalidArgument naming the path and the problem.
model::Profile readProfile(const std::string& path);

// Reads and checks a decision table written by `ringlab tune`; throws InvalidArgument naming the
// path and the problem.
model::DecisionTable readDecisionTable(const std::string& path);

// Each field as the user typed it; empty: not given.
struct ModelSource {
  std::string profilePath;
  std::string alpha, bandwidth, gamma, concurrency;
  std::string bandwidthCounts = "send";  // what bandwidth counts: send (one direction) or send+recv
  std::string volume = "send";           // which volume the user divides by the bandwidth
  bool overridden() const;               // any of alpha, bandwidth, gamma, concurrency given
};

struct ResolvedModel {
  model::Profile profile;
  std::string source;  // "profile p.json, overridden by flags", "stated defaults ..."
  std::vector<std::string> warnings;  // convention mismatches, one line each
};

// Throws InvalidArgument naming the flag and the value that is wrong.
ResolvedModel resolveModel(const ModelSource& source);

// A profile measured for one p says so in an optional "ranks" field (tools/ddp_bucket_check.py
// writes one); `ringlab calibrate`'s point-to-point profiles hold for any p and have none. Throws
// InvalidArgument when the profile at `path` (none when empty) was measured for another p.
void checkProfileRanks(const std::string& path, int ranks);
// That "ranks" field of the profile at `path`; none when it has none.
std::optional<int> profileRanks(const std::string& path);

}  // namespace ringlab::io
