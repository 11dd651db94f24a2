#pragma once
// tune's decision, from measurements given as data: per size, an algorithm replaces the default
// only where it was ahead beyond the noise, i.e. where the interval of its time over the
// default's (paired by interleaved round, record/statistics.hpp) lies wholly below 1, at a level
// corrected for the number of challengers so that the size as a whole keeps 95%. A lead the rounds
// cannot tell from noise keeps the default (and the size is said to be undecided), so that the
// table does not flip between algorithms on luck; two winners within the noise of each other are
// settled by a fixed order, not by which the noise put ahead. Adjacent sizes with the same choice
// merge into one rule (model::DecisionTable::rules). Deciding bands of neighbouring sizes on their
// pooled rounds was tried and measured: it made back-to-back tables agree less
// (docs/algorithms.md).
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ringlab/model/decision_table.hpp"

namespace ringlab::record {

// How tune measured, as its text states it: the algorithms in their order, the iterations per
// size and the interleaved rounds (measure::tuneMethod fills it from a TuneConfig).
struct TuneMethod {
  std::vector<std::string> algorithms;
  int iterations = 0;
  int rounds = 0;
};

// The confidence of each interval at a size with `challengers` algorithms besides the default:
// Bonferroni's 1 - (1 - model::kTuneConfidence) / challengers (0.95 for one, 0.9833 for three).
double comparisonLevel(std::size_t challengers);

// The decision at one size from each algorithm's time in each round (every list as long as the
// default's): among those ahead of the default beyond the noise, the fastest, or one the
// fastest is not ahead of beyond the noise: `preferred` (the choice below) if it is one, else the
// first of them in the registry's order; the default where none is ahead. "Beyond the noise": an
// interval wholly below 1 at comparisonLevel(the number of challengers). `margin`: the chosen
// one's lead over the default, or where the default was kept the closest other algorithm's (none
// when the default is the only one). Throws InvalidArgument when the default has no times or a
// list has another length.
struct SizeDecision {
  std::string chosen;
  std::optional<model::Margin> margin;
};
SizeDecision decideSize(const std::map<std::string, std::vector<double>>& roundsUs,
                        const std::string& defaultAlgorithm, const std::string& preferred = "");

// Decides every measured size of `table` from its rounds, against table.defaultAlgorithm, from the
// smallest size up (each preferring the choice below it).
void decide(model::DecisionTable& table);

}  // namespace ringlab::record
