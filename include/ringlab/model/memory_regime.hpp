#pragma once
// Which of the host's two regimes (params.hpp's MemoryParams) prices an AllReduce: in cache, or
// streaming from memory. Decided by the job's working set, not its message size: what one rank
// touches (its input, its output where apart, the scratch its algorithm receives into), times the
// ranks whose data go through one cache. A cache of cache_cores cores is shared by the ranks on
// them: p ranks on c cores put p / min(p, c) ranks on each core (all of them on one core when
// c = 1), so the same message can be priced in cache at p = 2 and from memory at p = 8.
#include <cstdint>

#include "ringlab/model/params.hpp"

namespace ringlab::model {

enum class Regime { Cache, Memory };

// "cache" or "memory".
const char* regimeName(Regime regime);

// The ranks of a p-rank job whose data go through one cache of `m`'s host (at least 1).
double ranksSharingCache(const ModelParams& m, int p);

// The bytes one rank touches for a message of `messageBytes`: its input, its output where apart
// (m.memory.out_of_place), and `scratchBytes` its algorithm receives into.
double rankWorkingSetBytes(const ModelParams& m, double messageBytes, double scratchBytes);

// The regime of a p-rank AllReduce whose ranks each touch `rankBytes`: Memory when the host has a
// knee (cache_bytes > 0) and the ranks sharing a cache touch more than it.
Regime regimeOf(const ModelParams& m, int p, double rankBytes);

// `m` fixed in one regime: beta and gamma (and gamma out of place) of that regime, cache_bytes 0,
// so that nothing priced with it switches again.
ModelParams inRegime(const ModelParams& m, Regime regime);

}  // namespace ringlab::model
