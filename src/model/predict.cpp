#include "ringlab/model/predict.hpp"

#include <algorithm>
#include <bit>

#include "ringlab/core/error.hpp"

namespace ringlab::model {
namespace {

// The modelled algorithms' closed forms by their index in modelledAlgorithms() (the same order:
// the ModelClosedForm tests hold each equal to its schedule's cost). "auto" prices all of them on
// every call; going by index builds no names or specs, which matters to callers that price
// millions of sizes (the bucket planner).
Cost closedForm(std::size_t which, int p, std::uint64_t count, std::uint64_t e,
                const ModelParams& m) {
  switch (which) {
    case 0:
      return ringAllReduceCost(p, count, e, m);
    case 1:
      return recursiveDoublingCost(p, count, e, m);
    case 2:
      return rabenseifnerCost(p, count, e, m);
    default:
      return binomialTreeCost(p, count, e, m);
  }
}

// The first of the fastest, as fastestAlgorithm names it.
std::size_t fastestIndex(int p, std::uint64_t count, std::uint64_t e, const ModelParams& m) {
  std::size_t best = 0;
  double bestTime = 0;
  for (std::size_t i = 0; i < modelledAlgorithms().size(); ++i) {
    const double t = closedForm(i, p, count, e, m).total_s();
    if (i == 0 || t < bestTime) {
      best = i;
      bestTime = t;
    }
  }
  return best;
}

const schedule::AlgorithmSpec& plainAuto() {
  static const schedule::AlgorithmSpec spec = [] {
    schedule::AlgorithmSpec s;
    s.name = kAutoAlgorithm;
    return s;
  }();
  return spec;
}

}  // namespace

const std::vector<std::string>& modelledAlgorithms() {
  static const std::vector<std::string> kNames = {"ring", "recursive_doubling", "rabenseifner",
                                                  "binomial_tree"};
  return kNames;
}

schedule::AlgorithmSpec chooseAlgorithm(const schedule::AlgorithmSpec& spec,
                                        schedule::Collective collective, int p, std::uint64_t count,
                                        DataType type, const ModelParams& m,
                                        const DecisionTable* measured) {
  if (spec.name != kAutoAlgorithm) return spec;
  if (!spec.ringOrder.empty() || spec.ownershipOffset != 0 || spec.channels != 1 ||
      !spec.channelOrders.empty() || spec.ranksPerNode != 0) {
    throwInvalid(
        "algorithm 'auto' chooses among " + std::to_string(modelledAlgorithms().size()) +
        " algorithms by their model and takes no ring order, offset, channels or ranks per "
        "node; name an algorithm to give those");
  }
  schedule::AlgorithmSpec chosen;
  if (collective != schedule::Collective::AllReduce) {
    chosen.name = "ring";
  } else if (measured && measured->ranks == p) {
    chosen.name = measured->choose(count * dataTypeSize(type));
  } else {
    chosen.name = fastestAlgorithm(p, count, type, m);
  }
  return chosen;
}

Cost predictAllReduce(const schedule::AlgorithmSpec& requested, int p, std::uint64_t count,
                      DataType type, const ModelParams& m) {
  const std::uint64_t e = dataTypeSize(type);
  if (requested == plainAuto()) return closedForm(fastestIndex(p, count, e, m), p, count, e, m);
  const schedule::AlgorithmSpec spec =
      chooseAlgorithm(requested, schedule::Collective::AllReduce, p, count, type, m);
  const std::vector<std::string>& names = modelledAlgorithms();
  const auto named = std::find(names.begin(), names.end(), spec.name);
  if (named != names.end())
    return closedForm(static_cast<std::size_t>(named - names.begin()), p, count, e, m);
  return scheduleCost(schedule::buildSchedule(schedule::Collective::AllReduce, p, spec), count,
                      type, m);
}

std::vector<Prediction> predictAll(int p, std::uint64_t count, DataType type,
                                   const ModelParams& m) {
  std::vector<Prediction> out;
  for (const std::string& name : modelledAlgorithms()) {
    schedule::AlgorithmSpec spec;
    spec.name = name;
    const schedule::Schedule s = schedule::buildSchedule(schedule::Collective::AllReduce, p, spec);
    out.push_back(
        {name, predictAllReduce(spec, p, count, type, m), schedule::countVolume(s, count, type)});
  }
  return out;
}

std::uint64_t countPeriod(const std::string& algorithm, int p) {
  if (algorithm == "ring") return static_cast<std::uint64_t>(p);  // chunks of ceil(count / p)
  if (algorithm == "rabenseifner") return std::bit_floor(static_cast<std::uint64_t>(p));  // blocks
  if (algorithm == "recursive_doubling" || algorithm == "binomial_tree") return 1;  // whole vector
  throwInvalid("algorithm '" + algorithm + "' has no closed form");
}

std::string fastestAlgorithm(int p, std::uint64_t count, DataType type, const ModelParams& m) {
  return modelledAlgorithms()[fastestIndex(p, count, dataTypeSize(type), m)];
}

std::uint64_t crossoverCount(int p, std::uint64_t lo, std::uint64_t hi, DataType type,
                             const ModelParams& m, const std::string& below) {
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (fastestAlgorithm(p, mid, type, m) == below ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace ringlab::model
