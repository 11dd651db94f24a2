#pragma once
// Options that several subcommands share, parsed one way everywhere.
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ringlab::cli {

// --ring-order LIST | --ring-stride A, resolved against p into an explicit order.
struct RingOrderOptions {
  std::string list;
  int stride = 0;  // 0: not given
  void add(CLI::App& app);
  std::vector<int> resolve(int ranks) const;  // empty when neither was given (identity)
};

// Throws InvalidArgument unless p is in 1..kMaxRanks.
inline constexpr int kMaxRanks = 1024;
void checkRanks(int ranks);

}  // namespace ringlab::cli
