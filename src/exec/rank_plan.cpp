#include "ringlab/exec/rank_plan.hpp"

#include <algorithm>

namespace ringlab::exec {
namespace {

bool overlaps(const ElementRange& a, const ElementRange& b) {
  return a.count && b.count && a.offset < b.end() && b.offset < a.end();
}

}  // namespace

RankPlan planForRank(const schedule::Schedule& s, int rank, std::uint64_t count) {
  RankPlan plan;
  plan.rank = rank;
  plan.count = count;
  std::vector<bool> written(s.blocks, false);
  const auto blockRange = [&](std::uint32_t b) { return partitionChunk(count, s.blocks, b); };
  for (std::uint32_t k = 0; k < s.steps.size(); ++k) {
    const schedule::Step& step = s.steps[k];
    PlannedStep planned;
    planned.index = k;
    std::vector<std::uint32_t> writtenThisStep;
    for (const schedule::Transfer& t : step.transfers) {
      for (std::uint32_t b = t.firstBlock; b < t.lastBlock; ++b) {
        const ElementRange range = blockRange(b);
        if (range.count == 0) continue;  // count < blocks: nothing to move for this block
        if (t.src == rank) planned.sends.push_back({t.dst, range, written[b]});
        if (t.dst == rank) {
          // A second receive into the block in this step accumulates onto the first.
          const bool again =
              std::find(writtenThisStep.begin(), writtenThisStep.end(), b) != writtenThisStep.end();
          planned.recvs.push_back({t.src, range, t.mode, written[b] || again});
          if (again) planned.bufferReceives = true;
          writtenThisStep.push_back(b);
        }
      }
    }
    for (std::uint32_t b : writtenThisStep) written[b] = true;
    std::uint64_t recvElements = 0;
    for (const PlannedRecv& r : planned.recvs) {
      recvElements += r.range.count;
      for (const PlannedSend& snd : planned.sends) {
        if (overlaps(r.range, snd.range)) planned.bufferReceives = true;
      }
    }
    plan.maxStepRecvElements = std::max(plan.maxStepRecvElements, recvElements);
    if (!planned.sends.empty() || !planned.recvs.empty()) plan.steps.push_back(std::move(planned));
  }
  for (std::uint32_t b = 0; b < s.blocks; ++b) {
    if (!written[b] && blockRange(b).count) plan.untouched.push_back(blockRange(b));
  }
  plan.result = {0, count};
  if (s.collective == schedule::Collective::ReduceScatter) {
    for (std::uint32_t b = 0; b < s.blocks; ++b) {
      if (s.blockOwner[b] == rank) plan.result = blockRange(b);
    }
  }
  return plan;
}

}  // namespace ringlab::exec
