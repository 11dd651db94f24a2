#pragma once
// A schedule is data: steps, and in each step the transfers between ranks, each naming a
// contiguous range of blocks (the buffer's partition into `blocks` chunks of whole elements,
// see core/partition.hpp) and whether the receiver reduces into or copies over its block.
// The same value is executed (exec/), verified (verify.hpp), counted (volume.hpp) and drawn.
//
// Semantics of one step: every send reads the sender's blocks as they were before the step;
// receives are applied after. A step's transfers run concurrently; steps run in order.
#include <cstdint>
#include <string>
#include <vector>

namespace ringlab::schedule {

enum class Collective { AllReduce, ReduceScatter, AllGather };
inline constexpr Collective kAllCollectives[] = {Collective::AllReduce, Collective::ReduceScatter,
                                                 Collective::AllGather};
const char* collectiveName(Collective collective);  // "allreduce", "reduce_scatter", "allgather"
Collective parseCollective(const std::string& name);

enum class RecvMode { Reduce, Copy };
const char* recvModeName(RecvMode mode);  // "reduce", "copy"

struct Transfer {
  int src = 0;
  int dst = 0;
  std::uint32_t firstBlock = 0;  // blocks [firstBlock, lastBlock)
  std::uint32_t lastBlock = 0;
  RecvMode mode = RecvMode::Copy;
};

struct Step {
  std::string phase;  // e.g. "reduce-scatter", "allgather"
  std::vector<Transfer> transfers;
};

struct Schedule {
  std::string algorithm;  // "ring", ...
  Collective collective = Collective::AllReduce;
  int ranks = 1;
  std::uint32_t blocks = 1;
  // The logical ring for ring algorithms (position -> rank); empty for others.
  std::vector<int> ringOrder;
  // ReduceScatter: the rank that ends holding each block fully reduced. AllGather: the rank that
  // starts with each block. Empty for AllReduce.
  std::vector<int> blockOwner;
  std::vector<Step> steps;
};

}  // namespace ringlab::schedule
