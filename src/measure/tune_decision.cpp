#include "ringlab/measure/tune_decision.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/measure/statistics.hpp"

namespace ringlab::measure {

SizeDecision decideSize(const std::map<std::string, std::vector<double>>& roundsUs,
                        const std::string& defaultAlgorithm, const std::string& preferred) {
  const auto base = roundsUs.find(defaultAlgorithm);
  if (base == roundsUs.end())
    throwInvalid("the default algorithm '" + defaultAlgorithm + "' was not measured");
  SizeDecision d{defaultAlgorithm, std::nullopt};
  std::optional<model::Margin> winner, closest, kept;
  for (const auto& [name, rounds] : roundsUs) {
    if (name == defaultAlgorithm) continue;
    const RatioInterval r = pairedRatioInterval(rounds, base->second);
    const model::Margin m{name, r.ratio, r.low, r.high};
    if (!closest || m.ratio < closest->ratio) closest = m;
    if (r.below1() && (!winner || m.ratio < winner->ratio)) winner = m;
    if (r.below1() && name == preferred) kept = m;
  }
  // The size below's winner stays unless this size's fastest beats it beyond the noise too.
  if (winner && kept &&
      !pairedRatioInterval(roundsUs.at(winner->algorithm), roundsUs.at(preferred)).below1())
    winner = kept;
  if (winner) d.chosen = winner->algorithm;
  d.margin = winner ? winner : closest;
  return d;
}

void decide(model::DecisionTable& table) {
  std::string below;
  for (model::MeasuredSize& m : table.measured) {
    SizeDecision d = decideSize(m.roundsUs, table.defaultAlgorithm, below);
    below = d.chosen;
    m.chosen = std::move(d.chosen);
    m.margin = std::move(d.margin);
  }
}

}  // namespace ringlab::measure
