#pragma once
// Predictions for named algorithms, and the choice between them: the one place that maps an
// algorithm name to its cost, for `ringlab model`, `bench --model`, `--algo auto` and the lab.
// The facts behind each name (closed form, schedule) come from the registry (registry.hpp).
#include <string>
#include <vector>

#include "ringlab/model/cost.hpp"
#include "ringlab/model/decision_table.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab::model {

// `spec` itself, or for "auto": the measured decision table's choice when one is given for this
// p, else the fastest candidate AllReduce algorithm at this size (for the other collectives, the
// first registered algorithm that builds it: defaultAlgorithm). A root is kept. Throws
// InvalidArgument when "auto" is given parameters that belong to one algorithm (ring order,
// channels, ranks per node).
schedule::AlgorithmSpec chooseAlgorithm(const schedule::AlgorithmSpec& spec,
                                        schedule::Collective collective, int p, std::uint64_t count,
                                        DataType type, const ModelParams& m,
                                        const DecisionTable* measured = nullptr);

// The closed form where the algorithm has one, else the model walked over its schedule; "auto"
// is priced as the algorithm it chooses. Throws InvalidArgument for a message over
// kMaxModelBytes (cost.hpp).
Cost predictAllReduce(const schedule::AlgorithmSpec& spec, int p, std::uint64_t count,
                      DataType type, const ModelParams& m);

// Any collective's cost: predictAllReduce's for AllReduce; for the others the algorithm's closed
// form of that collective where it has one (Algorithm::collectiveClosedForms), else its schedule
// walked. Throws InvalidArgument where the algorithm does not build the collective.
Cost predictCollective(schedule::Collective collective, const schedule::AlgorithmSpec& spec, int p,
                       std::uint64_t count, DataType type, const ModelParams& m);

struct Prediction {
  std::string algorithm;
  Cost cost;
  schedule::VolumeReport volume;  // from the algorithm's schedule; empty when not asked for
};

// Every candidate algorithm (candidateAlgorithms()) at this size, in that order; the volumes
// (which build every schedule) when `withVolume`.
std::vector<Prediction> predictAll(int p, std::uint64_t count, DataType type, const ModelParams& m,
                                   bool withVolume = true);

// The fastest candidate algorithm (ties go to the earlier one in candidateAlgorithms()).
std::string fastestAlgorithm(int p, std::uint64_t count, DataType type, const ModelParams& m);

// The smallest element count in (lo, hi] at which the fastest algorithm is no longer `below`
// (fastest at lo), found by bisection: the exact crossover that a size sweep only brackets.
std::uint64_t crossoverCount(int p, std::uint64_t lo, std::uint64_t hi, DataType type,
                             const ModelParams& m, const std::string& below);

}  // namespace ringlab::model
