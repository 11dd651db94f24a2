#include "collective_algorithm.hpp"

#include "ringlab/model/registry.hpp"

namespace ringlab::torch_backend {

void checkAllReduceAlgorithm(const std::string& name, int ranks) {
  if (name == model::kAutoAlgorithm) return;
  schedule::AlgorithmSpec spec;
  spec.name = name;
  // Building it says what is wrong in the library's words: an unknown name, an algorithm of
  // other collectives only, a p it does not take, a parameter a name alone cannot give.
  model::buildSchedule(schedule::Collective::AllReduce, ranks, spec);
}

CollectiveOptions optionsFor(schedule::Collective collective, CollectiveOptions call) {
  const std::string& name = call.algorithm.name;
  const bool builds = name != model::kAutoAlgorithm &&
                      (model::findAlgorithm(name).collectives & model::collectiveBit(collective));
  // Default options stand for the collective's own default algorithm (Communicator).
  if (!builds && collective != schedule::Collective::AllReduce) call.algorithm = {};
  return call;
}

}  // namespace ringlab::torch_backend
