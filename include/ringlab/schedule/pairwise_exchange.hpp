#pragma once
// Pairwise-exchange AllToAll (Thakur, Rabenseifner & Gropp 2005, for any p): in step k of p - 1,
// rank r sends its chunk for rank r + k (mod p) straight to it and receives rank r - k's chunk for
// it, so every rank sends one chunk and receives one in each step, and no chunk is forwarded.
// The schedule's p x p blocks are (source, destination) pairs (schedule.hpp).
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::schedule {

inline constexpr const char* kPairwiseExchange = "pairwise_exchange";

Schedule pairwiseExchangeAllToAll(int ranks);

}  // namespace ringlab::schedule
