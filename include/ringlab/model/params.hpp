#pragma once
// Parameters of the alpha-beta-gamma cost model, each in a named struct with its unit in the
// field name; formulas never carry magic numbers.
namespace ringlab::model {

// One point-to-point message of m bytes costs alpha + m * beta. beta is per direction: a rank can
// send m bytes and receive m bytes in the same alpha + m * beta (full duplex, the seed's model).
struct LinkParams {
  double alpha_s = 0;          // startup per message, seconds
  double beta_s_per_byte = 0;  // seconds per byte, one direction
  bool operator==(const LinkParams&) const = default;
};

// Reducing m bytes locally (read two inputs, write one) costs m * gamma.
struct ReduceParams {
  double gamma_s_per_byte = 0;
  bool operator==(const ReduceParams&) const = default;
};

// Transfers that share one host's cores and memory bus do not all progress at full speed. A step
// with t concurrent transfers runs its bandwidth and reduction terms max(1, t / concurrency)
// times slower. 0 means unlimited: every rank has its own path (separate hosts and NICs, the
// seed's model). Calibrated by running 1, 2, 4 ... ping-pong pairs at once (ringlab calibrate).
struct HostParams {
  double concurrent_transfers = 0;
  bool operator==(const HostParams&) const = default;
};

// Data that fits in cache moves and reduces several times faster than data that streams from
// memory. A message (the per-rank vector) larger than cache_bytes uses the memory-resident
// coefficients instead of LinkParams' beta and ReduceParams' gamma. cache_bytes 0: one regime.
// Calibrated from the same ping-pong and kernel sizes as beta and gamma (ringlab calibrate).
struct MemoryParams {
  double cache_bytes = 0;
  double beta_mem_s_per_byte = 0;
  double gamma_mem_s_per_byte = 0;
  bool operator==(const MemoryParams&) const = default;
};

struct ModelParams {
  LinkParams link;
  ReduceParams reduce;
  HostParams host;
  MemoryParams memory;
  bool operator==(const ModelParams&) const = default;
};

// The parameters that apply to a message of `messageBytes` per rank (the memory regime swapped in
// for beta and gamma when it is larger than the cache).
inline ModelParams forMessage(const ModelParams& m, double messageBytes) {
  ModelParams e = m;
  if (m.memory.cache_bytes > 0 && messageBytes > m.memory.cache_bytes) {
    e.link.beta_s_per_byte = m.memory.beta_mem_s_per_byte;
    e.reduce.gamma_s_per_byte = m.memory.gamma_mem_s_per_byte;
  }
  return e;
}

}  // namespace ringlab::model
