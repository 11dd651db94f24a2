#pragma once
// Parameters of the alpha-beta-gamma cost model, each in a named struct with its unit in the
// field name; formulas never carry magic numbers.
#include <string>

namespace ringlab::model {

// One point-to-point message of m bytes costs alpha + m * beta. beta is per direction: a rank can
// send m bytes and receive m bytes in the same alpha + m * beta (full duplex, the seed's model).
struct LinkParams {
  double alpha_s = 0;          // startup per message, seconds
  double beta_s_per_byte = 0;  // seconds per byte, one direction
  bool operator==(const LinkParams&) const = default;
};

// Reducing m bytes locally (read two inputs, write one) costs m * gamma: a += b, in place. Out of
// place (c = a + b, the first reduction of each chunk into a separate output buffer) writes a third
// buffer and can cost more: gamma_out_of_place; 0 means not measured, the same as gamma.
struct ReduceParams {
  double gamma_s_per_byte = 0;
  double gamma_out_of_place_s_per_byte = 0;
  bool operator==(const ReduceParams&) const = default;
};

// Transfers that share one host's cores and memory bus do not all progress at full speed. A step
// with t concurrent transfers runs its bandwidth and reduction terms max(1, t / concurrency)
// times slower. 0 means unlimited: every rank has its own path (separate hosts and NICs, the
// seed's model). Calibrated by running 1, 2, 4 ... ping-pong pairs at once (ringlab calibrate).
//
// cores: the cores the job's ranks run on (calibrate records the host's); p ranks on fewer cores
// share them, and their data share those cores' caches (MemoryParams). 0: not recorded, one core
// per rank.
struct HostParams {
  double concurrent_transfers = 0;
  double cores = 0;
  bool operator==(const HostParams&) const = default;
};

// Data that fits in cache moves and reduces several times faster than data that streams from
// memory. Which regime prices an AllReduce follows from its working set, not its message size
// (model/memory_regime.hpp): every rank touches its input, its output where that is apart
// (out_of_place) and the scratch its algorithm receives into, and the ranks whose data go through
// one cache (cache_cores of the host's cores, shared by the ranks on them) add up. Beyond
// cache_bytes of such data, beta_mem and gamma_mem replace LinkParams' beta and ReduceParams'
// gamma. cache_bytes 0: one regime. cache_bytes, cache_cores and the *_mem coefficients are the
// host's, from calibrate (copy and reduce rates against working-set size); out_of_place is the
// run's (forOutOfPlace).
struct MemoryParams {
  double cache_bytes = 0;
  double beta_mem_s_per_byte = 0;
  double gamma_mem_s_per_byte = 0;
  double gamma_mem_out_of_place_s_per_byte = 0;  // 0: not measured, the same as gamma_mem
  double cache_cores = 0;                        // 0 or 1: a cache of one core's own
  bool out_of_place = false;
  bool operator==(const MemoryParams&) const = default;
};

// A reducing receive that reads the sender's buffer in place (shm's single copy, for messages of at
// least its singleCopyBytes) is one pass: it reads the sender's buffer and its own and writes its
// own, the pass of the a += b kernel (c = a + b out of place), so it costs its reduction (gamma,
// or gamma_out_of_place) only, no transfer (beta). A message is one of the executor's segments
// (core/partition.hpp), as in the roofline. fused_reduce_from_bytes 0: never (inproc, tcp, mpi,
// profiles from before it). Recorded by calibrate from the transport it measured; segment_bytes is
// not a machine's figure but the run's: set by whoever prices a run (0: transfers not cut).
//
// The pass is that cheap only where the sender's bytes are already in the receiver's cache. A run
// that repeats its call on the same input out of place (a benchmark's loop, as nccl-tests' and
// ringlab bench's) leaves the sender's untouched input there from the previous call:
// sender_input_cached, the run's, set by forOutOfPlace. Every other fused receive reads bytes the
// sender wrote since (in place, the previous call's result; after the first step, this call's
// partial sums), which cross from the sender's core at the rate the ping-pong measured on fresh
// bytes: the pass goes at the slower of that crossing (beta) and the reduction (gamma). On a host
// whose cores pass bytes about as fast as they reduce them the two prices agree; where crossing is
// 3-4x slower (docs/MODEL_VS_MEASURED.md), pricing every pass at gamma missed in place by 2x.
struct FusionParams {
  double fused_reduce_from_bytes = 0;
  double segment_bytes = 0;
  bool sender_input_cached = false;
  bool operator==(const FusionParams&) const = default;
};

struct ModelParams {
  LinkParams link;
  ReduceParams reduce;
  HostParams host;
  MemoryParams memory;
  FusionParams fusion;
  bool operator==(const ModelParams&) const = default;
};

// The stated defaults for when no profile is given: defaultProfile()'s parameters (profile.hpp),
// here for what needs the numbers without the profile's file format (the Communicator's options).
ModelParams defaultModelParams();

// The parameters of an out-of-place AllReduce (output buffer apart from the input): the
// out-of-place reduction coefficients swapped in for gamma and gamma_mem where they were measured,
// and the output counted in the working set.
inline ModelParams forOutOfPlace(const ModelParams& m) {
  ModelParams e = m;
  // The output buffer adds to the working set; where there is one regime it changes nothing, and
  // the parameters stay equal to the in-place ones (bench prints one prediction then).
  e.memory.out_of_place = m.memory.cache_bytes > 0;
  e.fusion.sender_input_cached = m.fusion.fused_reduce_from_bytes > 0;
  if (m.reduce.gamma_out_of_place_s_per_byte > 0)
    e.reduce.gamma_s_per_byte = m.reduce.gamma_out_of_place_s_per_byte;
  if (m.memory.gamma_mem_out_of_place_s_per_byte > 0)
    e.memory.gamma_mem_s_per_byte = m.memory.gamma_mem_out_of_place_s_per_byte;
  return e;
}

// The parameters for a run whose executor cuts transfers into `segmentBytes` messages (0: not cut):
// the messages that decide where a reducing receive is fused.
inline ModelParams forSegments(const ModelParams& m, double segmentBytes) {
  ModelParams e = m;
  e.fusion.segment_bytes = segmentBytes;
  return e;
}

// The range a coefficient is accepted in, wherever it comes from (a profile, --alpha, --bw,
// --gamma, --concurrency): far wider than any machine, narrow enough that every predicted time
// stays finite (alpha_s = 1e308 made every time inf).
struct ParamRange {
  const char* field;  // as a profile names it
  double lo, hi;      // inclusive
  const char* unit;
};
inline constexpr ParamRange kAlphaRange{"alpha_s", 0, 1, "s"};
inline constexpr ParamRange kBetaRange{"beta_s_per_byte", 1e-15, 1e-3, "s/B (1 PB/s .. 1 KB/s)"};
inline constexpr ParamRange kGammaRange{"gamma_s_per_byte", 0, 1e-3, "s/B"};
inline constexpr ParamRange kConcurrencyRange{"concurrent_transfers", 0, 1e6, "(0: unlimited)"};
inline constexpr ParamRange kCacheRange{"cache_bytes", 0, 9007199254740992.0, "B (2^53)"};
inline constexpr ParamRange kCacheCoresRange{"cache_cores", 0, 1e6, "(0: one core's own)"};
inline constexpr ParamRange kCoresRange{"cores", 0, 1e6, "(0: not recorded, a core per rank)"};
inline constexpr ParamRange kBetaMemRange{"beta_mem_s_per_byte", 0, 1e-3, "s/B"};
inline constexpr ParamRange kGammaMemRange{"gamma_mem_s_per_byte", 0, 1e-3, "s/B"};
inline constexpr ParamRange kGammaOutOfPlaceRange{"gamma_out_of_place_s_per_byte", 0, 1e-3,
                                                  "s/B (0: as gamma)"};
inline constexpr ParamRange kFusedReduceFromRange{"fused_reduce_from_bytes", 0, 9007199254740992.0,
                                                  "B (0: never)"};
inline constexpr ParamRange kGammaMemOutOfPlaceRange{"gamma_mem_out_of_place_s_per_byte", 0, 1e-3,
                                                     "s/B (0: as gamma_mem)"};

// `value` when it is finite and in range; else throws InvalidArgument
// "<who>: alpha_s = 1e+308: must be in 0..1 s".
double checkedParam(const ParamRange& range, double value, const std::string& who);

}  // namespace ringlab::model
