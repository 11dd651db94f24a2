#pragma once
// Which collective a call runs. It lives in core, below the transports, because a call's stamp
// carries it (transport.hpp) and a transport prints its name without knowing any algorithm; the
// schedules that build each collective are schedule/'s.
#include <string_view>

namespace ringlab {

// The values are fixed: a call's stamp carries them (transport.hpp), new ones go at the end.
// Reduce and Broadcast have a root (AlgorithmSpec::root, schedule/algorithms.hpp). AllToAll's
// buffer is p equal chunks, chunk d for rank d, and its schedule has p x p blocks: block b is rank
// b / p's chunk b % p, which goes to rank b % p and lands there as chunk b / p.
enum class Collective { AllReduce, ReduceScatter, AllGather, Reduce, Broadcast, AllToAll };
inline constexpr Collective kAllCollectives[] = {Collective::AllReduce, Collective::ReduceScatter,
                                                 Collective::AllGather, Collective::Reduce,
                                                 Collective::Broadcast, Collective::AllToAll};
// "allreduce", "reduce_scatter", "allgather", "reduce", "broadcast", "alltoall"
const char* collectiveName(Collective collective);
// Throws InvalidArgument naming the value and the valid names.
Collective parseCollective(std::string_view name);
// Whether the collective has a root rank (reduce, broadcast).
bool hasRoot(Collective collective);

}  // namespace ringlab
