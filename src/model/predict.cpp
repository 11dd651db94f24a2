#include "ringlab/model/predict.hpp"

#include "ringlab/core/error.hpp"

namespace ringlab::model {
namespace {

// The algorithm's cost: its closed form where it has one (the path "auto" takes on every call,
// which matters to callers that price millions of sizes: the bucket planner), else its schedule
// walked.
Cost costOf(const Algorithm& a, const schedule::AlgorithmSpec& spec, int p, std::uint64_t count,
            DataType type, const ModelParams& m) {
  if (a.closedForm) return a.closedForm(p, count, dataTypeSize(type), m);
  return scheduleCost(buildSchedule(schedule::Collective::AllReduce, p, spec), count, type, m);
}

schedule::AlgorithmSpec namedSpec(const std::string& name) {
  schedule::AlgorithmSpec spec;
  spec.name = name;
  return spec;
}

// The first of the fastest candidates, with its cost; by the table's own entries, so that "auto"
// builds no names or specs on the closed-form path.
std::pair<const Algorithm*, Cost> fastest(int p, std::uint64_t count, DataType type,
                                          const ModelParams& m) {
  const std::uint64_t e = dataTypeSize(type);
  const Algorithm* best = nullptr;
  Cost bestCost;
  for (const Algorithm* a : candidateTable()) {
    const Cost c = a->closedForm ? a->closedForm(p, count, e, m)
                                 : costOf(*a, namedSpec(a->name), p, count, type, m);
    if (!best || c.total_s() < bestCost.total_s()) {
      best = a;
      bestCost = c;
    }
  }
  if (!best) throwInvalid("no algorithm is registered as a candidate for 'auto'");
  return {best, bestCost};
}

// "auto" with no algorithm's parameters (a root is the call's, not an algorithm's).
bool plainAuto(const schedule::AlgorithmSpec& spec) {
  static const schedule::AlgorithmSpec kPlain = [] {
    schedule::AlgorithmSpec s;
    s.name = kAutoAlgorithm;
    return s;
  }();
  if (spec.root == 0) return spec == kPlain;
  schedule::AlgorithmSpec unrooted = spec;
  unrooted.root = 0;
  return unrooted == kPlain;
}

}  // namespace

schedule::AlgorithmSpec chooseAlgorithm(const schedule::AlgorithmSpec& spec,
                                        schedule::Collective collective, int p, std::uint64_t count,
                                        DataType type, const ModelParams& m,
                                        const DecisionTable* measured) {
  if (spec.name != kAutoAlgorithm) return spec;
  if (!plainAuto(spec)) {
    throwInvalid(
        "algorithm 'auto' chooses among " + std::to_string(candidateAlgorithms().size()) +
        " algorithms by their model and takes no ring order, offset, channels or ranks per "
        "node; name an algorithm to give those");
  }
  schedule::AlgorithmSpec chosen;
  chosen.root = spec.root;
  if (collective != schedule::Collective::AllReduce) {
    chosen.name = defaultAlgorithm(collective).name;
  } else if (measured && measured->ranks == p) {
    chosen.name = measured->choose(count * dataTypeSize(type));
  } else {
    chosen.name = fastestAlgorithm(p, count, type, m);
  }
  return chosen;
}

Cost predictAllReduce(const schedule::AlgorithmSpec& requested, int p, std::uint64_t count,
                      DataType type, const ModelParams& m) {
  if (plainAuto(requested)) return fastest(p, count, type, m).second;
  const schedule::AlgorithmSpec spec =
      chooseAlgorithm(requested, schedule::Collective::AllReduce, p, count, type, m);
  // The model's links are uniform, so a ring order or offset does not change a closed form.
  return costOf(findAlgorithm(spec.name), spec, p, count, type, m);
}

Cost predictCollective(schedule::Collective collective, const schedule::AlgorithmSpec& requested,
                       int p, std::uint64_t count, DataType type, const ModelParams& m) {
  if (collective == schedule::Collective::AllReduce)
    return predictAllReduce(requested, p, count, type, m);
  const schedule::AlgorithmSpec spec = chooseAlgorithm(requested, collective, p, count, type, m);
  const Algorithm& a = findAlgorithm(spec.name);
  for (const auto& [c, closedForm] : a.collectiveClosedForms) {
    if (c == collective) return closedForm(p, count, dataTypeSize(type), m);
  }
  return scheduleCost(buildSchedule(collective, p, spec), count, type, m);
}

std::vector<Prediction> predictAll(int p, std::uint64_t count, DataType type, const ModelParams& m,
                                   bool withVolume) {
  std::vector<Prediction> out;
  for (const std::string& name : candidateAlgorithms()) {
    const schedule::AlgorithmSpec spec = namedSpec(name);
    Prediction prediction{name, predictAllReduce(spec, p, count, type, m), {}};
    if (withVolume) {
      prediction.volume = schedule::countVolume(
          buildSchedule(schedule::Collective::AllReduce, p, spec), count, type);
    }
    out.push_back(std::move(prediction));
  }
  return out;
}

std::string fastestAlgorithm(int p, std::uint64_t count, DataType type, const ModelParams& m) {
  return fastest(p, count, type, m).first->name;
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
