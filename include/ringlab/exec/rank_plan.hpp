#pragma once
// One rank's view of a Schedule on a concrete buffer: per step, the element ranges it sends and
// receives, split at block boundaries and told where each send reads from (the caller's input
// until the block is first written, the output after) so out-of-place runs need no initial copy.
#include <cstdint>
#include <vector>

#include "ringlab/core/partition.hpp"
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::exec {

struct PlannedSend {
  int peer = 0;
  ElementRange range;
  bool fromOutput = false;  // false: read the caller's input buffer (block not yet written)
};

struct PlannedRecv {
  int peer = 0;
  ElementRange range;
  schedule::RecvMode mode = schedule::RecvMode::Copy;
  bool accumulatesOutput = false;  // Reduce: false means combine with the input, not the output
  // Planned with raw inputs marked (a premultiplied sum's plan): whether this rank's operand and
  // the received one are a rank's own input that no step has combined yet, which the sum
  // multiplies by its factor as it takes them in.
  bool mineRaw = false;
  bool theirsRaw = false;
};

struct PlannedStep {
  std::uint32_t index = 0;  // the schedule's step number, used as the message tag
  std::vector<PlannedSend> sends;
  std::vector<PlannedRecv> recvs;
  // All of the step's receives land in scratch and are applied in order once the sends complete,
  // when a receive writes elements that a send of the same step reads, or when two receives of
  // the step write the same elements (several ranks reduce into one block at once: applied one
  // after the other, never racing, the second accumulating onto the first).
  bool bufferReceives = false;
};

struct RankPlan {
  int rank = 0;
  std::uint64_t count = 0;
  std::vector<PlannedStep> steps;
  // Element ranges this rank never writes; out-of-place runs copy them from input to output.
  std::vector<ElementRange> untouched;
  // Where the result lives on this rank (the whole buffer, the owned block of a reduce-scatter,
  // nothing at a reduce's ranks other than the root); avg divides exactly this range.
  ElementRange result;
  // Planned with raw inputs marked: the parts of the result that hold a raw input when the steps
  // are done (p = 1, or a block copied in from a rank that never combined it), which a
  // premultiplied sum multiplies at the end.
  std::vector<ElementRange> rawResult;
  std::uint64_t maxStepRecvElements = 0;
};

// `marksRawInputs` (a premultiplied sum) follows every rank's blocks through the steps to mark
// which operands are raw inputs: p x blocks bits while planning, so only where they are needed.
RankPlan planForRank(const schedule::Schedule& schedule, int rank, std::uint64_t count,
                     bool marksRawInputs = false);

}  // namespace ringlab::exec
