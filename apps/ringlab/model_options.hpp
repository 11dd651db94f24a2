#pragma once
// Model parameters from the command line: a profile file, overridden by --alpha/--bw/--gamma,
// with the volume-convention check of the seed (a bandwidth that counts both directions must not
// be paired with a send-only volume, nor the reverse).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ringlab/model/decision_table.hpp"
#include "ringlab/model/profile.hpp"

namespace ringlab::cli {

struct ModelOptions {
  std::string profilePath;
  std::string alpha, bandwidth, gamma, concurrency;
  std::string bandwidthCounts = "send";  // what --bw counts: send (one direction) or send+recv
  std::string volume = "send";           // which volume the user divides by --bw
  void add(CLI::App& app);
  // The profile to use, and where each parameter came from. Warnings (convention mismatches) are
  // appended to `warnings`, one line each.
  model::Profile resolve(std::vector<std::string>& warnings, std::string& source) const;
};

// "alpha 5.000 us, beta 0.0800 ns/B (12.50 GB/s per direction), gamma 0 ns/B, concurrent
// transfers unlimited": the one way every command prints the parameters it predicts with.
std::string describeModel(const model::Profile& profile);

// Reads and checks a decision table written by `ringlab tune`; throws InvalidArgument naming the
// path and the problem.
model::DecisionTable readDecisionTable(const std::string& path);

// Reads and checks a profile file; throws InvalidArgument naming the path and the problem.
model::Profile readProfile(const std::string& path);

}  // namespace ringlab::cli
