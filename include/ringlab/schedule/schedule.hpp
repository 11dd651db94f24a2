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
#include <string_view>
#include <vector>

#include "ringlab/core/collective.hpp"

namespace ringlab::schedule {

// The collectives are core's (core/collective.hpp: a call's stamp carries them below the
// transports); schedule's users name them here as they always have.
using ringlab::Collective;
using ringlab::collectiveName;
using ringlab::hasRoot;
using ringlab::kAllCollectives;
using ringlab::parseCollective;

enum class RecvMode { Reduce, Copy };
const char* recvModeName(RecvMode mode);  // "reduce", "copy"
// The mode named "reduce" or "copy"; throws InvalidArgument naming `what` for another name.
RecvMode parseRecvMode(std::string_view name, std::string_view what);

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
  // ReduceScatter, Reduce: the rank that ends holding each block fully reduced. AllGather,
  // Broadcast, AllToAll: the rank that starts with each block. Empty for AllReduce.
  std::vector<int> blockOwner;
  std::vector<Step> steps;
};

// Where block b starts: whole at one rank (AllGather, Broadcast, AllToAll: its owner), or -1 when
// every rank starts with its own contribution to it (the reducing collectives).
int blockSource(const Schedule& schedule, std::uint32_t b);
// Where block b must end complete: at one rank (ReduceScatter and Reduce: its owner; AllToAll: the
// rank it is for), or -1 at every rank.
int blockDestination(const Schedule& schedule, std::uint32_t b);

// The elements of a `count`-element buffer that blocks [first, last) cover: the blocks partition
// the buffer (core/partition.hpp), except AllToAll's, where block b is chunk b % p of the buffer's
// partition into p chunks (the send side's; with p dividing the count, the receive side's too).
std::uint64_t spanElements(const Schedule& schedule, std::uint64_t count, std::uint32_t first,
                           std::uint32_t last);

}  // namespace ringlab::schedule
