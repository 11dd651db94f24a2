#include "ringlab/schedule/ring.hpp"

#include <cstdint>

#include "ringlab/core/error.hpp"

namespace ringlab::schedule {
namespace {

// Block labels travel around the ring: the label at position j is the member order[j mod n], so
// that with offset 0 the member at position i ends the reduce-scatter owning label order[i] = its
// own member index.
std::uint32_t labelAt(const RingOrder& order, long position) {
  return static_cast<std::uint32_t>(order.rankAt(position));
}

int rankOf(const RingSlice& slice, int member) {
  return slice.members.empty() ? member : slice.members[member];
}

void checkSlice(const RingOrder& order, const RingSlice& slice) {
  if (!slice.members.empty() && static_cast<int>(slice.members.size()) != order.size()) {
    throw Error(ErrorCode::Internal, "ring slice lists " + std::to_string(slice.members.size()) +
                                         " members for a ring of " + std::to_string(order.size()));
  }
}

Step& stepAt(Schedule& s, std::size_t index, const std::string& phase) {
  while (s.steps.size() <= index) s.steps.push_back({phase, {}});
  return s.steps[index];
}

// One step of a ring phase: the member at position i sends label (i + shift) to its successor.
void addRingStep(Schedule& s, const RingOrder& order, const RingSlice& slice, std::size_t index,
                 const std::string& phase, long shift, RecvMode mode) {
  Step& step = stepAt(s, index, slice.scope + phase);
  for (int i = 0; i < order.size(); ++i) {
    const std::uint32_t first = slice.firstBlock + labelAt(order, i + shift) * slice.blocksPerLabel;
    step.transfers.push_back({rankOf(slice, order.rankAt(i)), rankOf(slice, order.rankAt(i + 1L)),
                              first, first + slice.blocksPerLabel, mode});
  }
}

Schedule emptySchedule(const RingOrder& order, Collective collective) {
  Schedule s;
  s.algorithm = "ring";
  s.collective = collective;
  s.ranks = order.size();
  s.blocks = static_cast<std::uint32_t>(order.size());
  s.ringOrder = order.ranks();
  return s;
}

std::vector<int> ownersAfterReduceScatter(const RingOrder& order, int offset) {
  std::vector<int> owner(order.size());
  for (int i = 0; i < order.size(); ++i) {
    owner[labelAt(order, static_cast<long>(i) + offset)] = order.rankAt(i);
  }
  return owner;
}

}  // namespace

// Reduce-scatter: at step t the member at position i sends label (i + offset - t - 1), which its
// successor reduces; after n-1 steps position i holds label (i + offset) complete.
std::size_t addRingReduceScatter(Schedule& s, const RingOrder& order, int offset,
                                 const RingSlice& slice, std::size_t firstStep) {
  checkSlice(order, slice);
  const int n = order.size();
  for (int t = 0; t < n - 1; ++t) {
    addRingStep(s, order, slice, firstStep + t, "reduce-scatter", static_cast<long>(offset) - t - 1,
                RecvMode::Reduce);
  }
  return firstStep + (n - 1);
}

// Allgather: position i starts with label (i + offset) and at step t forwards label
// (i + offset - t), which its successor copies.
std::size_t addRingAllGather(Schedule& s, const RingOrder& order, int offset,
                             const RingSlice& slice, std::size_t firstStep) {
  checkSlice(order, slice);
  const int n = order.size();
  for (int t = 0; t < n - 1; ++t) {
    addRingStep(s, order, slice, firstStep + t, "allgather", static_cast<long>(offset) - t,
                RecvMode::Copy);
  }
  return firstStep + (n - 1);
}

Schedule ringReduceScatter(const RingOrder& order, int offset) {
  Schedule s = emptySchedule(order, Collective::ReduceScatter);
  s.blockOwner = ownersAfterReduceScatter(order, offset);
  addRingReduceScatter(s, order, offset, {}, 0);
  return s;
}

Schedule ringAllGather(const RingOrder& order, int offset) {
  Schedule s = emptySchedule(order, Collective::AllGather);
  s.blockOwner = ownersAfterReduceScatter(order, offset);
  addRingAllGather(s, order, offset, {}, 0);
  return s;
}

Schedule ringAllReduce(const RingOrder& order, int offset) {
  Schedule s = emptySchedule(order, Collective::AllReduce);
  const std::size_t next = addRingReduceScatter(s, order, offset, {}, 0);
  addRingAllGather(s, order, offset, {}, next);
  return s;
}

}  // namespace ringlab::schedule
