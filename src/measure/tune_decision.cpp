#include "ringlab/measure/tune_decision.hpp"

#include <algorithm>

#include "ringlab/core/error.hpp"
#include "ringlab/measure/statistics.hpp"

namespace ringlab::measure {

double comparisonLevel(std::size_t challengers) {
  // Bonferroni over one size's challengers: k intervals at 1 - 0.05 / k each leave at most a 5%
  // chance that any noise-only challenger looks faster (at 95% each, with k = 3, ~14%). Holm's
  // step-down would clear more challengers after the first, but its levels differ from one
  // challenger to the next; tune keeps one winner per size, and with one level per size every
  // margin the table records and prints is an interval at the same, stated confidence.
  return 1 -
         (1 - model::kTuneConfidence) / static_cast<double>(std::max<std::size_t>(challengers, 1));
}

SizeDecision decideSize(const std::map<std::string, std::vector<double>>& roundsUs,
                        const std::string& defaultAlgorithm, const std::string& preferred) {
  const auto base = roundsUs.find(defaultAlgorithm);
  if (base == roundsUs.end())
    throwInvalid("the default algorithm '" + defaultAlgorithm + "' was not measured");
  SizeDecision d{defaultAlgorithm, std::nullopt};
  const double level = comparisonLevel(roundsUs.size() - 1);
  std::optional<model::Margin> winner, closest, kept;
  for (const auto& [name, rounds] : roundsUs) {
    if (name == defaultAlgorithm) continue;
    const RatioInterval r = pairedRatioInterval(rounds, base->second, level);
    const model::Margin m{name, r.ratio, r.low, r.high, level};
    if (!closest || m.ratio < closest->ratio) closest = m;
    if (r.below1() && (!winner || m.ratio < winner->ratio)) winner = m;
    if (r.below1() && name == preferred) kept = m;
  }
  // The size below's winner stays unless this size's fastest beats it beyond the noise too.
  if (winner && kept &&
      !pairedRatioInterval(roundsUs.at(winner->algorithm), roundsUs.at(preferred), level).below1())
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
