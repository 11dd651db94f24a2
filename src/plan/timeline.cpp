#include "ringlab/plan/timeline.hpp"

#include <cmath>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::plan {

namespace {

constexpr double kMaxTimelineMicros = 1e12;
constexpr std::uint64_t kMaxTimelineBytes = std::uint64_t{1} << 53;

// Seconds shown as microseconds, the unit timelines are written in.
std::string micros(double seconds) {
  return formatNumber(seconds * 1e6) + " us";
}

}  // namespace

std::uint64_t Timeline::totalBytes() const {
  std::uint64_t total = 0;
  for (const GradTensor& t : tensors) total += t.bytes();
  return total;
}

void validate(const Timeline& t) {
  const auto fail = [&](const std::string& what) {
    throwInvalid("timeline " + t.source + ": " + what);
  };
  const auto record = [&](std::size_t i) {
    return "tensor " + std::to_string(i) + " ('" + t.tensors[i].name + "')";
  };
  if (t.tensors.empty()) fail("no gradient tensors");
  // Times up to 1e12 us (11.6 days, a record's bound), a copy rate up to 1 PB/s (0: not given).
  for (const auto& [what, v, most] :
       {std::tuple{"backward_end_us", t.backwardEnd_s * 1e6, kMaxTimelineMicros},
        std::tuple{"forward_us", t.forward_s * 1e6, kMaxTimelineMicros},
        std::tuple{"optimizer_step_us", t.optimizerStep_s * 1e6, kMaxTimelineMicros},
        std::tuple{"copy_bandwidth_GBps", t.copyBytesPerSecond / 1e9, 1e6}}) {
    if (!(v >= 0 && v <= most)) {
      fail(std::string(what) + " = " + formatNumber(v) + ": must be in 0.." + formatNumber(most));
    }
  }
  std::uint64_t bytes = 0;
  std::unordered_map<std::string, std::size_t> names;
  std::unordered_set<std::size_t> indices;
  const bool withIndices = t.tensors.front().paramIndex.has_value();
  for (std::size_t i = 0; i < t.tensors.size(); ++i) {
    const GradTensor& g = t.tensors[i];
    if (g.name.empty()) fail("tensor " + std::to_string(i) + ": empty name");
    if (g.count == 0)
      fail(record(i) + ": element count 0; every gradient has at least one element");
    if (g.count > kMaxTimelineBytes || (bytes += g.bytes()) > kMaxTimelineBytes) {
      fail(record(i) + ": the gradients reach more than 2^53 bytes (" + std::to_string(g.count) +
           " elements here)");
    }
    if (!std::isfinite(g.ready_s) || g.ready_s < 0) {
      fail(record(i) + ": ready time " + micros(g.ready_s) + " must be finite and >= 0");
    }
    if (i > 0 && g.ready_s < t.tensors[i - 1].ready_s) {
      fail(record(i) + ": ready at " + micros(g.ready_s) + ", before the previous tensor (" +
           micros(t.tensors[i - 1].ready_s) +
           "); list tensors in the order their gradients become ready");
    }
    if (g.ready_s > t.backwardEnd_s) {
      fail(record(i) + ": ready at " + micros(g.ready_s) + ", after the backward's end (" +
           micros(t.backwardEnd_s) + ")");
    }
    if (auto [it, fresh] = names.emplace(g.name, i); !fresh) {
      fail(record(i) + ": duplicate name (also tensor " + std::to_string(it->second) + ")");
    }
    if (g.dtype != t.tensors.front().dtype) {
      fail(record(i) + ": datatype " + dataTypeName(g.dtype) + " differs from tensor 0's " +
           dataTypeName(t.tensors.front().dtype) + "; the planner takes one datatype per timeline");
    }
    if (g.paramIndex.has_value() != withIndices) {
      fail(record(i) + ": a parameter index is given for some tensors but not for others");
    }
    if (withIndices && !indices.insert(*g.paramIndex).second) {
      fail(record(i) + ": parameter index " + std::to_string(*g.paramIndex) + " given twice");
    }
  }
}

}  // namespace ringlab::plan
