#pragma once
// Predictions for named algorithms, and the choice between them: the one place that maps an
// algorithm name to its cost, for `ringlab model`, `bench --model`, `--algo auto` and the lab.
#include <string>
#include <vector>

#include "ringlab/model/cost.hpp"
#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab::model {

// The AllReduce algorithms with a closed form, in the order tables list them.
const std::vector<std::string>& modelledAlgorithms();

// The closed form where the algorithm has one, else the model walked over its schedule.
Cost predictAllReduce(const schedule::AlgorithmSpec& spec, int p, std::uint64_t count, DataType type,
                      const ModelParams& m);

struct Prediction {
  std::string algorithm;
  Cost cost;
  schedule::VolumeReport volume;  // from the algorithm's schedule
};

// Every modelled algorithm at this size, in modelledAlgorithms() order.
std::vector<Prediction> predictAll(int p, std::uint64_t count, DataType type, const ModelParams& m);

// The fastest modelled algorithm (ties go to the earlier one in modelledAlgorithms()).
std::string fastestAlgorithm(int p, std::uint64_t count, DataType type, const ModelParams& m);

}  // namespace ringlab::model
