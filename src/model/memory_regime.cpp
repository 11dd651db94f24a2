#include "ringlab/model/memory_regime.hpp"

#include <algorithm>

namespace ringlab::model {

const char* regimeName(Regime regime) {
  return regime == Regime::Memory ? "memory" : "cache";
}

double ranksSharingCache(const ModelParams& m, int p) {
  const double ranks = std::max(1, p);
  // Not recorded: a core per rank.
  const double cores = m.host.cores > 0 ? m.host.cores : ranks;
  const double used = std::min(ranks, cores);
  return ranks / used * std::min(std::max(1.0, m.memory.cache_cores), used);
}

double rankWorkingSetBytes(const ModelParams& m, double messageBytes, double scratchBytes) {
  return messageBytes * (m.memory.out_of_place ? 2 : 1) + scratchBytes;
}

Regime regimeOf(const ModelParams& m, int p, double rankBytes) {
  const double cache = m.memory.cache_bytes;
  return cache > 0 && rankBytes * ranksSharingCache(m, p) > cache ? Regime::Memory : Regime::Cache;
}

ModelParams inRegime(const ModelParams& m, Regime regime) {
  ModelParams e = m;
  if (regime == Regime::Memory) {
    e.link.beta_s_per_byte = m.memory.beta_mem_s_per_byte;
    e.reduce.gamma_s_per_byte = m.memory.gamma_mem_s_per_byte;
    e.reduce.gamma_out_of_place_s_per_byte = m.memory.gamma_mem_out_of_place_s_per_byte;
  }
  e.memory.cache_bytes = 0;
  return e;
}

}  // namespace ringlab::model
