#include "ringlab/core/collective.hpp"

#include "ringlab/core/enum_names.hpp"

namespace ringlab {
namespace {

constexpr EnumName<Collective> kCollectiveNames[] = {
    {Collective::AllReduce, "allreduce"}, {Collective::ReduceScatter, "reduce_scatter"},
    {Collective::AllGather, "allgather"}, {Collective::Reduce, "reduce"},
    {Collective::Broadcast, "broadcast"}, {Collective::AllToAll, "alltoall"}};

}  // namespace

const char* collectiveName(Collective collective) {
  return enumName(std::span(kCollectiveNames), collective).data();
}

Collective parseCollective(std::string_view name) {
  return parseEnum(std::span(kCollectiveNames), name, "collective");
}

bool hasRoot(Collective collective) {
  return collective == Collective::Reduce || collective == Collective::Broadcast;
}

}  // namespace ringlab
