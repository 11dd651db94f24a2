#include "ringlab/report/schedule_text.hpp"

#include <iterator>

#include <fmt/format.h>

#include "ringlab/core/units.hpp"
#include "ringlab/schedule/ring_shape.hpp"

namespace ringlab::report {

void writeScheduleSteps(const schedule::Schedule& s, const schedule::AlgorithmSpec& spec,
                        const std::function<void(std::string_view line)>& write) {
  fmt::memory_buffer line;
  fmt::format_to(std::back_inserter(line),
                 "# {} {}, p = {}, ring order {}, ownership offset {}, {} steps, {} blocks\n"
                 "# each entry: sender->receiver block, and whether the receiver reduces or "
                 "copies\n",
                 s.algorithm, schedule::collectiveName(s.collective), s.ranks,
                 schedule::ringOrderText(spec, s.ranks), spec.ownershipOffset, s.steps.size(),
                 s.blocks);
  write({line.data(), line.size()});
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    line.clear();
    fmt::format_to(std::back_inserter(line), "step {:>3} {:<15}", k + 1, s.steps[k].phase);
    const char* separator = "";
    for (const schedule::Transfer& t : s.steps[k].transfers) {
      fmt::format_to(std::back_inserter(line), "{} {}->{} b{}", separator, t.src, t.dst,
                     t.firstBlock);
      if (t.lastBlock != t.firstBlock + 1)
        fmt::format_to(std::back_inserter(line), "..{}", t.lastBlock - 1);
      fmt::format_to(std::back_inserter(line), " {}", schedule::recvModeName(t.mode));
      separator = " |";
    }
    line.push_back('\n');
    write({line.data(), line.size()});
  }
}

std::string verdictLine(const schedule::Schedule& s, const schedule::Verdict& verdict) {
  if (!verdict.valid) return fmt::format("verdict: INVALID: {}\n", verdict.reason);
  switch (s.collective) {
    case schedule::Collective::Reduce:
      return fmt::format(
          "verdict: valid: every element at the root (rank {}) is reduced over all {} ranks "
          "exactly once\n",
          s.blockOwner.front(), s.ranks);
    case schedule::Collective::Broadcast:
      return fmt::format("verdict: valid: all {} ranks end with the root's (rank {}) data\n",
                         s.ranks, s.blockOwner.front());
    case schedule::Collective::AllToAll:
      return fmt::format(
          "verdict: valid: each of the {} ranks' blocks reaches the rank it is for\n", s.ranks);
    default:
      return fmt::format(
          "verdict: valid: every {} element is reduced over all {} ranks exactly once\n",
          s.collective == schedule::Collective::ReduceScatter ? "owned" : "rank's", s.ranks);
  }
}

std::string volumeText(const schedule::Schedule& s, const schedule::VolumeReport& v,
                       std::uint64_t bytes, DataType type) {
  std::string text =
      fmt::format("volume for {} of {} ({} elements), bytes per rank:\n  {:>6} {:>14} {:>14}\n",
                  formatSize(bytes), dataTypeName(type), bytes / dataTypeSize(type), "rank", "send",
                  "send+recv");
  for (int r = 0; r < s.ranks; ++r) {
    text += fmt::format("  {:6} {:14} {:14}\n", r, v.perRank[r].sentBytes,
                        v.perRank[r].sentBytes + v.perRank[r].receivedBytes);
  }
  if (s.collective == schedule::Collective::AllReduce && s.algorithm == schedule::kRing) {
    text += fmt::format("closed form (send convention) 2(p-1)n/p = {:.1f} bytes per rank\n",
                        schedule::ringAllReduceSendBytes(s.ranks, static_cast<double>(bytes)));
  }
  return text;
}

}  // namespace ringlab::report
