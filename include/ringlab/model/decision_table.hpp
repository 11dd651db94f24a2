#pragma once
// A measured decision table (`ringlab tune`): for one p, transport and datatype, which algorithm
// to run from each message size up, with the times behind every choice: a size takes another
// algorithm than the default only where that one was ahead beyond the noise (measure/
// tune_decision.hpp decides, and records the margin). `--algo auto`
// prefers it to the model; it also exports as Open MPI rules and MPICH's selection file
// (mpi_exports.hpp).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/model/setup_use.hpp"

namespace ringlab::model {

inline constexpr const char* kDecisionTableFormat = "ringlab-tune/1";
// The chance, per size, that no noise-only challenger is taken for faster than the default
// (record/tune_decision.hpp corrects each interval's level for the number of challengers).
inline constexpr double kTuneConfidence = 0.95;

// How an algorithm compares with the default at one size: time(algorithm) / time(default) over
// the interleaved rounds, and that ratio's interval at confidence `level` (95% over the size's
// challengers together, so each at more where there are several; tables from before the
// correction: 0.95). Below 1 is faster.
struct Margin {
  std::string algorithm;
  double ratio = 1, low = 0, high = 0;
  double level = 0.95;
};

struct MeasuredSize {
  std::uint64_t bytes = 0;
  std::map<std::string, double> timeUs;  // algorithm -> measured time (median over the rounds)
  std::map<std::string, std::vector<double>> roundsUs;  // algorithm -> its time in each round
  // The decision: the algorithm for this size, and the margin behind it (the winner's lead, or
  // where the default was kept, the closest other algorithm's). A table written by hand may have
  // neither: its sizes take their fastest.
  std::string chosen;
  std::optional<Margin> margin;
  // The default was kept, though an algorithm looked faster: the rounds could not tell them apart.
  bool undecided() const { return margin && margin->algorithm != choice() && margin->ratio < 1; }
  std::string fastest() const;
  std::string choice() const { return chosen.empty() ? fastest() : chosen; }
};

struct DecisionRule {
  std::uint64_t fromBytes = 0;  // applies from this size up to the next rule's
  std::string algorithm;
};

struct DecisionTable {
  int ranks = 0;
  std::string transport, placement, dtype, host, ringlabVersion, date;
  std::string defaultAlgorithm;  // kept at every size where no other was ahead beyond the noise
  std::vector<MeasuredSize> measured;  // by increasing size

  // Consecutive sizes with the same choice merged; the first rule starts at 0 bytes.
  std::vector<DecisionRule> rules() const;
  // The algorithm the table chooses for `bytes`.
  std::string choose(std::uint64_t bytes) const;
};

nlohmann::json toJson(const DecisionTable& table);
// One line naming what differs between where the table was measured and this run, "" when nothing
// does; a table from another transport refused (setup_use.hpp's rule).
std::string checkDecisionTableUse(const DecisionTable& table, const std::string& source,
                                  const SetupUse& use);

// Throws InvalidArgument naming `source` and the problem (format, missing field, no sizes, an
// algorithm ringlab does not know).
DecisionTable decisionTableFromJson(const nlohmann::json& json, const std::string& source);

}  // namespace ringlab::model
