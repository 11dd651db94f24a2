#pragma once
// The text of a tuning run (`ringlab tune`): each candidate's time per size, the choice per size
// with the margin behind it, and the rules of the decision table.
#include <string>

#include "ringlab/model/decision_table.hpp"
#include "ringlab/record/tune_decision.hpp"

namespace ringlab::report {

std::string tuneText(const record::TuneMethod& method, const model::DecisionTable& table);

}  // namespace ringlab::report
