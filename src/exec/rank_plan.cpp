#include "ringlab/exec/rank_plan.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "ringlab/core/error.hpp"

namespace ringlab::exec {
namespace {

bool overlaps(const ElementRange& a, const ElementRange& b) {
  return a.count && b.count && a.offset < b.end() && b.offset < a.end();
}

// Where a block lies in the buffers: the same range at both ends of a transfer, except in an
// AllToAll, whose block (i, j) is chunk j of rank i's input and lands as chunk i of rank j's
// output (schedule.hpp). The executor has nowhere to keep an AllToAll block at a third rank, so a
// schedule that forwards one is refused.
class BlockPlacement {
 public:
  BlockPlacement(const schedule::Schedule& s, std::uint64_t count) : s_(s), count_(count) {
    if (s.collective == schedule::Collective::AllToAll && count % s.ranks != 0) {
      throwInvalid("an alltoall of " + std::to_string(count) + " elements over p = " +
                   std::to_string(s.ranks) + ": the count must be a multiple of p");
    }
  }
  bool allToAll() const { return s_.collective == schedule::Collective::AllToAll; }
  ElementRange sent(std::uint32_t b) const {
    return allToAll() ? chunk(b % ranks()) : partitionChunk(count_, s_.blocks, b);
  }
  ElementRange received(std::uint32_t b) const {
    return allToAll() ? chunk(b / ranks()) : partitionChunk(count_, s_.blocks, b);
  }
  void checkDirect(const schedule::Transfer& t, std::uint32_t b) const {
    if (!allToAll()) return;
    if (static_cast<std::uint32_t>(t.src) != b / ranks() ||
        static_cast<std::uint32_t>(t.dst) != b % ranks()) {
      throwInvalid("alltoall schedule '" + s_.algorithm + "' sends block " + std::to_string(b) +
                   " from rank " + std::to_string(t.src) + " to rank " + std::to_string(t.dst) +
                   ": the executor runs alltoall blocks straight from their source to their "
                   "destination only");
    }
  }

 private:
  std::uint32_t ranks() const { return static_cast<std::uint32_t>(s_.ranks); }
  ElementRange chunk(std::uint32_t index) const { return partitionChunk(count_, ranks(), index); }
  const schedule::Schedule& s_;
  std::uint64_t count_;
};

// Which blocks of each rank hold a sum (combined) rather than the rank's raw input, step by step.
// A reducing receive makes a sum; a copy takes over what the sender's block held when the step
// began (every send of a step reads the block as it was before the step).
class RawInputTracker {
 public:
  explicit RawInputTracker(const schedule::Schedule& s)
      : combined_(static_cast<std::size_t>(s.ranks), std::vector<bool>(s.blocks, false)),
        afterStep_(combined_) {}

  // Marks the receive of block b by t.dst in this step; returns {mine raw, theirs raw} for a
  // reducing receive. Mine is the block as an earlier receive of this step left it, theirs as it
  // was when the step began.
  std::pair<bool, bool> receive(const schedule::Transfer& t, std::uint32_t b) {
    const bool theirs = combined_[t.src][b];
    const bool mine = afterStep_[t.dst][b];
    const bool combines = t.mode == schedule::RecvMode::Reduce;
    afterStep_[t.dst][b] = combines || theirs;
    changed_.emplace_back(t.dst, b);
    if (!combines) return {false, false};  // a copy takes no operand into a sum
    return {!mine, !theirs};
  }
  void endStep() {
    for (const auto& [rank, b] : changed_) combined_[rank][b] = afterStep_[rank][b];
    changed_.clear();
  }
  bool raw(int rank, std::uint32_t b) const { return !combined_[rank][b]; }

 private:
  std::vector<std::vector<bool>> combined_;   // when the step began
  std::vector<std::vector<bool>> afterStep_;  // with this step's receives so far
  std::vector<std::pair<int, std::uint32_t>> changed_;
};

}  // namespace

RankPlan planForRank(const schedule::Schedule& s, int rank, std::uint64_t count,
                     bool marksRawInputs) {
  RankPlan plan;
  plan.rank = rank;
  plan.count = count;
  const BlockPlacement place(s, count);
  std::optional<RawInputTracker> rawInputs;
  if (marksRawInputs) rawInputs.emplace(s);
  std::vector<bool> written(s.blocks, false);
  for (std::uint32_t k = 0; k < s.steps.size(); ++k) {
    const schedule::Step& step = s.steps[k];
    PlannedStep planned;
    planned.index = k;
    std::vector<std::uint32_t> writtenThisStep;
    for (const schedule::Transfer& t : step.transfers) {
      for (std::uint32_t b = t.firstBlock; b < t.lastBlock; ++b) {
        place.checkDirect(t, b);
        if (place.sent(b).count == 0) continue;  // count < blocks: nothing to move for this block
        const auto [mineRaw, theirsRaw] =
            rawInputs ? rawInputs->receive(t, b) : std::pair(false, false);
        if (t.src == rank) planned.sends.push_back({t.dst, place.sent(b), written[b]});
        if (t.dst == rank) {
          // A second receive into the block in this step accumulates onto the first.
          const bool again =
              std::find(writtenThisStep.begin(), writtenThisStep.end(), b) != writtenThisStep.end();
          planned.recvs.push_back(
              {t.src, place.received(b), t.mode, written[b] || again, mineRaw, theirsRaw});
          if (again) planned.bufferReceives = true;
          writtenThisStep.push_back(b);
        }
      }
    }
    if (rawInputs) rawInputs->endStep();
    for (std::uint32_t b : writtenThisStep) written[b] = true;
    std::uint64_t recvElements = 0;
    for (const PlannedRecv& r : planned.recvs) {
      recvElements += r.range.count;
      // An AllToAll reads only its input and writes only its output, which differ (Communicator).
      for (const PlannedSend& snd : planned.sends) {
        if (!place.allToAll() && overlaps(r.range, snd.range)) planned.bufferReceives = true;
      }
    }
    plan.maxStepRecvElements = std::max(plan.maxStepRecvElements, recvElements);
    if (!planned.sends.empty() || !planned.recvs.empty()) plan.steps.push_back(std::move(planned));
  }
  plan.result = {0, count};
  if (s.collective == schedule::Collective::Reduce && s.blockOwner.front() != rank) {
    // Only the root's output holds a result; elsewhere it is working space: nothing to copy in or
    // divide.
    plan.result = {};
    return plan;
  }
  for (std::uint32_t b = 0; b < s.blocks; ++b) {
    // An AllToAll's own chunk (block (rank, rank)) is the one it keeps: the same range in input
    // and output. Its other blocks written nowhere here are other ranks' business.
    if (place.allToAll() && b != static_cast<std::uint32_t>(rank) * (s.ranks + 1)) continue;
    if (!written[b] && place.received(b).count) plan.untouched.push_back(place.received(b));
  }
  if (s.collective == schedule::Collective::ReduceScatter) {
    for (std::uint32_t b = 0; b < s.blocks; ++b) {
      if (s.blockOwner[b] == rank) plan.result = place.received(b);
    }
  }
  for (std::uint32_t b = 0; rawInputs && b < s.blocks; ++b) {
    const ElementRange range = place.received(b);
    const bool inResult = range.offset >= plan.result.offset && range.end() <= plan.result.end();
    if (range.count && inResult && rawInputs->raw(rank, b)) plan.rawResult.push_back(range);
  }
  return plan;
}

}  // namespace ringlab::exec
