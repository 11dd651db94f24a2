#include "ringlab/model/describe.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ringlab/core/units.hpp"

namespace ringlab::model {

namespace {

// " (out of place 0.2100 ns/B)" where the out-of-place kernel was measured, else "".
std::string outOfPlaceText(double secondsPerByte) {
  return secondsPerByte > 0 ? fmt::format(" (out of place {:.4f} ns/B)", secondsPerByte * 1e9)
                            : std::string();
}

}  // namespace

std::string describeModel(const Profile& p) {
  const ModelParams& m = p.params;
  const std::string concurrency = m.host.concurrent_transfers > 0
                                      ? fmt::format("{:.2f}", m.host.concurrent_transfers)
                                      : std::string("unlimited");
  const std::string memory =
      m.memory.cache_bytes > 0
          ? fmt::format(
                ", beyond a working set of {} per cache ({} of {} cores): beta {:.4f} "
                "ns/B, gamma {:.4f} ns/B{}",
                formatSize(static_cast<std::uint64_t>(m.memory.cache_bytes)),
                std::max(1.0, m.memory.cache_cores),
                m.host.cores > 0 ? fmt::format("{}", m.host.cores) : "unrecorded",
                m.memory.beta_mem_s_per_byte * 1e9, m.memory.gamma_mem_s_per_byte * 1e9,
                outOfPlaceText(m.memory.gamma_mem_out_of_place_s_per_byte))
          : std::string();
  const std::string fused =
      m.fusion.fused_reduce_from_bytes > 0
          ? fmt::format(", reducing receives fused (gamma only) from {}",
                        formatSize(static_cast<std::uint64_t>(m.fusion.fused_reduce_from_bytes)))
          : std::string();
  return fmt::format(
      "alpha {}, beta {:.4f} ns/B ({:.2f} GB/s per direction), gamma {:.4f} ns/B{}, "
      "concurrent transfers {}{}{}",
      formatMicros(m.link.alpha_s), m.link.beta_s_per_byte * 1e9, 1e-9 / m.link.beta_s_per_byte,
      m.reduce.gamma_s_per_byte * 1e9, outOfPlaceText(m.reduce.gamma_out_of_place_s_per_byte),
      concurrency, memory, fused);
}

}  // namespace ringlab::model
