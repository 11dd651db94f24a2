#pragma once
// Predicted AllReduce time = steps x alpha + bytes x beta + reduced bytes x gamma.
//
// Two ways to compute it, which tests hold equal: closed forms per algorithm (Thakur, Rabenseifner
// & Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA 2005), written
// with exact chunk sizes so that a count not divisible by p is priced by its largest chunk; and
// scheduleCost, which walks the Schedule itself. Assumptions (the seed's): every rank has the same
// link parameters to every other, a rank sends and receives at once without serialisation (full
// duplex), transfers of one step do not contend for a link, and a step ends when its slowest
// transfer and reduction end. Named extensions, each calibrated (params.hpp): transfers that
// share a host's cores slow each other (HostParams), a job whose working set outgrows the cache
// streams from memory (MemoryParams, memory_regime.hpp), and a reducing receive that reads the
// sender's buffer in place is one pass, gamma without beta (FusionParams). Left out: memory reads
// beyond the reduction, synchronisation, protocol overhead and topology routing (see
// docs/models.md).
#include <cstdint>
#include <string>

#include "ringlab/core/dtype.hpp"
#include "ringlab/model/memory_regime.hpp"
#include "ringlab/model/params.hpp"
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::model {

struct Cost {
  std::uint64_t steps = 0;
  double startup_s = 0;    // steps x alpha
  double bandwidth_s = 0;  // bytes on the critical path x beta
  double reduce_s = 0;     // reduced bytes on the critical path x gamma
  // The regime whose beta and gamma priced it, from the run's working set (memory_regime.hpp).
  Regime regime = Regime::Cache;
  double total_s() const { return startup_s + bandwidth_s + reduce_s; }
};

// The largest message the model prices: 2^53 B (8 PiB). Costs are doubles, exact for whole
// numbers up to 2^53, and below it every byte count of the built-in algorithms (at most
// 2 ceil(lg p) n per rank) fits in 64 bits.
inline constexpr std::uint64_t kMaxModelBytes = std::uint64_t{1} << 53;

// Throws InvalidArgument naming the message and kMaxModelBytes.
[[noreturn]] void refuseModelBytes(std::uint64_t count, std::uint64_t elementBytes);

// count x elementBytes; refused when it is over kMaxModelBytes (or overflows). Every closed form
// and scheduleCost checks its message with it; inline, as "auto" prices every call.
inline std::uint64_t modelBytes(std::uint64_t count, std::uint64_t elementBytes) {
  std::uint64_t bytes = 0;  // no division: this runs several times per priced size
  if (__builtin_mul_overflow(count, elementBytes, &bytes) || bytes > kMaxModelBytes)
    refuseModelBytes(count, elementBytes);
  return bytes;
}

// Closed forms. `count` elements of `elementBytes` bytes each, p ranks.
Cost ringAllReduceCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                       const ModelParams& m);
Cost ringReduceScatterCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                           const ModelParams& m);
Cost ringAllGatherCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                       const ModelParams& m);
Cost recursiveDoublingCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                           const ModelParams& m);
Cost rabenseifnerCost(int p, std::uint64_t count, std::uint64_t elementBytes, const ModelParams& m);
Cost binomialTreeCost(int p, std::uint64_t count, std::uint64_t elementBytes, const ModelParams& m);
// The binomial tree's halves on their own: ceil(lg p) steps of the whole vector, reduced (reduce
// to a root) or copied (broadcast from one).
Cost binomialTreeReduceCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                            const ModelParams& m);
Cost binomialTreeBroadcastCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                               const ModelParams& m);
// AllToAll by pairwise exchange, `count` elements per rank: p - 1 steps in which every rank
// sends and receives one chunk of the count's partition into p (the largest sets the time).
Cost pairwiseExchangeCost(int p, std::uint64_t count, std::uint64_t elementBytes,
                          const ModelParams& m);

// The model applied step by step to a schedule: per step, alpha, plus beta times the largest of
// any rank's bytes sent and bytes received in that step, plus gamma times the largest bytes any
// rank reduces in that step. A rank's scratch, for the working set, is what it receives in a step
// whose receives must wait for its sends (one writes what a send reads, or two write the same
// elements: the executor's rule), the most of any such step.
Cost scheduleCost(const schedule::Schedule& schedule, std::uint64_t count, DataType type,
                  const ModelParams& m);

}  // namespace ringlab::model
