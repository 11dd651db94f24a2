#pragma once
// Options that several subcommands share, parsed one way everywhere.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ringlab/schedule/algorithms.hpp"

namespace ringlab::cli {

// --algo NAME, --ring-order LIST | --ring-stride A, --channels K, --ranks-per-node N, resolved
// against p into an AlgorithmSpec (model::buildSchedule then rejects options the algorithm does not
// take).
struct AlgorithmOptions {
  std::string algo = "ring";
  std::string ringOrderList;
  std::optional<int> ringStride;  // unset: not given (0 is an error, not "identity")
  int channels = 1;               // multi_ring
  int ranksPerNode = 0;           // hierarchical; 0: not given
  void add(CLI::App& app);
  schedule::AlgorithmSpec resolve(int ranks) const;
};

// Throws InvalidArgument unless p is in 1..kMaxRanks.
inline constexpr int kMaxRanks = 1024;
void checkRanks(int ranks);

}  // namespace ringlab::cli
