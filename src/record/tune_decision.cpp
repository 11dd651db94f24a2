#include "ringlab/record/tune_decision.hpp"

#include <algorithm>

#include "ringlab/core/error.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/record/statistics.hpp"

namespace ringlab::record {

double comparisonLevel(std::size_t challengers) {
  // Bonferroni over one size's challengers: k intervals at 1 - 0.05 / k each leave at most a 5%
  // chance that any noise-only challenger looks faster (at 95% each, with k = 3, ~14%). Holm's
  // step-down would clear more challengers after the first, but its levels differ from one
  // challenger to the next; tune keeps one winner per size, and with one level per size every
  // margin the table records and prints is an interval at the same, stated confidence.
  return 1 -
         (1 - model::kTuneConfidence) / static_cast<double>(std::max<std::size_t>(challengers, 1));
}

namespace {

// Where two winners are within the noise of each other, the order that settles it: the size
// below's choice, else the first in the registry's order, never the one the noise put ahead.
std::string settle(const std::vector<std::string>& contenders, const std::string& preferred) {
  if (std::find(contenders.begin(), contenders.end(), preferred) != contenders.end())
    return preferred;
  for (const std::string& name : model::algorithmNames()) {
    if (std::find(contenders.begin(), contenders.end(), name) != contenders.end()) return name;
  }
  return contenders.front();
}

}  // namespace

SizeDecision decideSize(const std::map<std::string, std::vector<double>>& roundsUs,
                        const std::string& defaultAlgorithm, const std::string& preferred) {
  const auto base = roundsUs.find(defaultAlgorithm);
  if (base == roundsUs.end())
    throwInvalid("the default algorithm '" + defaultAlgorithm + "' was not measured");
  SizeDecision d{defaultAlgorithm, std::nullopt};
  const double level = comparisonLevel(roundsUs.size() - 1);
  std::map<std::string, model::Margin> winners;
  std::optional<model::Margin> closest;
  for (const auto& [name, rounds] : roundsUs) {
    if (name == defaultAlgorithm) continue;
    const RatioInterval r = pairedRatioInterval(rounds, base->second, level);
    const model::Margin m{name, r.ratio, r.low, r.high, level};
    if (!closest || m.ratio < closest->ratio) closest = m;
    if (r.below1()) winners.emplace(name, m);
  }
  d.margin = closest;
  if (winners.empty()) return d;
  const auto fastest = std::min_element(winners.begin(), winners.end(), [](auto& x, auto& y) {
    return x.second.ratio < y.second.ratio;
  });
  // The winners the fastest is not ahead of beyond the noise.
  std::vector<std::string> contenders;
  for (const auto& [name, margin] : winners) {
    if (name == fastest->first ||
        !pairedRatioInterval(roundsUs.at(fastest->first), roundsUs.at(name), level).below1())
      contenders.push_back(name);
  }
  d.chosen = settle(contenders, preferred);
  d.margin = winners.at(d.chosen);
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

}  // namespace ringlab::record
