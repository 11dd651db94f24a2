#include "ringlab/schedule/schedule.hpp"

#include "ringlab/core/error.hpp"

namespace ringlab::schedule {

const char* collectiveName(Collective collective) {
  switch (collective) {
    case Collective::AllReduce:
      return "allreduce";
    case Collective::ReduceScatter:
      return "reduce_scatter";
    case Collective::AllGather:
      return "allgather";
  }
  return "unknown";
}

Collective parseCollective(const std::string& name) {
  for (Collective c : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather}) {
    if (name == collectiveName(c)) return c;
  }
  throwInvalid("unknown collective '" + name + "': valid are allreduce, reduce_scatter, allgather");
}

const char* recvModeName(RecvMode mode) {
  return mode == RecvMode::Reduce ? "reduce" : "copy";
}

}  // namespace ringlab::schedule
