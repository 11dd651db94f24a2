#pragma once
// A measured decision table (`ringlab tune`): for one p, transport and datatype, which algorithm
// ran fastest from each message size up, with the times behind every choice. `--algo auto`
// prefers it to the model; it also exports as Open MPI rules and MPICH's selection file
// (mpi_exports.hpp).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ringlab::model {

inline constexpr const char* kDecisionTableFormat = "ringlab-tune/1";

struct MeasuredSize {
  std::uint64_t bytes = 0;
  std::map<std::string, double> timeUs;  // algorithm -> measured time
  std::string fastest() const;
};

struct DecisionRule {
  std::uint64_t fromBytes = 0;  // applies from this size up to the next rule's
  std::string algorithm;
};

struct DecisionTable {
  int ranks = 0;
  std::string transport, dtype, host, ringlabVersion, date;
  std::vector<MeasuredSize> measured;  // by increasing size

  // Consecutive sizes with the same winner merged; the first rule starts at 0 bytes.
  std::vector<DecisionRule> rules() const;
  // The algorithm the table chooses for `bytes`.
  std::string choose(std::uint64_t bytes) const;
};

nlohmann::json toJson(const DecisionTable& table);
// Throws InvalidArgument naming `source` and the problem (format, missing field, no sizes, an
// algorithm ringlab does not know).
DecisionTable decisionTableFromJson(const nlohmann::json& json, const std::string& source);

}  // namespace ringlab::model
