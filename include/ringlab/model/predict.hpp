#pragma once
// Predictions for named algorithms, and the choice between them: the one place that maps an
// algorithm name to its cost, for `ringlab model`, `bench --model`, `--algo auto` and the lab.
#include <string>
#include <vector>

#include "ringlab/model/cost.hpp"
#include "ringlab/model/decision_table.hpp"
#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab::model {

// `--algo auto`: the algorithm is chosen per call, as the fastest modelled one at that size.
inline constexpr const char* kAutoAlgorithm = "auto";

// `spec` itself, or for "auto": the measured decision table's choice when one is given for this
// p, else the fastest modelled AllReduce algorithm at this size (ring for reduce-scatter and
// allgather, the only algorithm that builds them). Throws InvalidArgument when "auto" is given
// parameters that belong to one algorithm (ring order, channels, ranks per node).
schedule::AlgorithmSpec chooseAlgorithm(const schedule::AlgorithmSpec& spec,
                                        schedule::Collective collective, int p, std::uint64_t count,
                                        DataType type, const ModelParams& m,
                                        const DecisionTable* measured = nullptr);

// The AllReduce algorithms with a closed form, in the order tables list them.
const std::vector<std::string>& modelledAlgorithms();

// The closed form where the algorithm has one, else the model walked over its schedule; "auto"
// is priced as the algorithm it chooses.
Cost predictAllReduce(const schedule::AlgorithmSpec& spec, int p, std::uint64_t count,
                      DataType type, const ModelParams& m);

struct Prediction {
  std::string algorithm;
  Cost cost;
  schedule::VolumeReport volume;  // from the algorithm's schedule
};

// Every modelled algorithm at this size, in modelledAlgorithms() order.
std::vector<Prediction> predictAll(int p, std::uint64_t count, DataType type, const ModelParams& m);

// The period of a modelled algorithm's rounding of the count into chunks: within one memory
// regime its closed form is R(count mod period) + B * floor(count / period) for some R and B
// (ring: p chunks; Rabenseifner: 2^floor(lg p) blocks; the others move whole vectors: 1). The
// bucket planner relies on this shape. Throws InvalidArgument for a name with no closed form.
std::uint64_t countPeriod(const std::string& algorithm, int p);

// The fastest modelled algorithm (ties go to the earlier one in modelledAlgorithms()).
std::string fastestAlgorithm(int p, std::uint64_t count, DataType type, const ModelParams& m);

// The smallest element count in (lo, hi] at which the fastest algorithm is no longer `below`
// (fastest at lo), found by bisection: the exact crossover that a size sweep only brackets.
std::uint64_t crossoverCount(int p, std::uint64_t lo, std::uint64_t hi, DataType type,
                             const ModelParams& m, const std::string& below);

}  // namespace ringlab::model
