#pragma once
// tune's decision, from measurements given as data: per size, an algorithm replaces the default
// only where it was ahead beyond the noise, i.e. where the 95% interval of its time over the
// default's (paired by interleaved round, measure/statistics.hpp) lies wholly below 1. A lead
// the rounds cannot tell from noise keeps the default, so that the table does not flip between
// algorithms on luck; adjacent sizes with the same choice merge into one rule
// (model::DecisionTable::rules).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ringlab/model/decision_table.hpp"

namespace ringlab::measure {

// The decision at one size from each algorithm's time in each round (every list as long as the
// default's): `chosen` the fastest of those ahead beyond the noise, else the default; `margin`
// the chosen one's lead, or where the default was kept the closest other algorithm's (none when
// the default is the only one). Throws InvalidArgument when the default has no times or a list
// has another length.
struct SizeDecision {
  std::string chosen;
  std::optional<model::Margin> margin;
};
SizeDecision decideSize(const std::map<std::string, std::vector<double>>& roundsUs,
                        const std::string& defaultAlgorithm);

// Decides every measured size of `table` from its rounds, against table.defaultAlgorithm.
void decide(model::DecisionTable& table);

}  // namespace ringlab::measure
