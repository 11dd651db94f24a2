#include "ringlab/schedule/ring.hpp"

#include <cstdint>

namespace ringlab::schedule {
namespace {

// Block labels travel around the ring: the label at position j is the block order[j mod p], so
// that with offset 0 the rank at position i ends the reduce-scatter owning block order[i] = its
// own rank number.
std::uint32_t blockAt(const RingOrder& order, long position) {
  return static_cast<std::uint32_t>(order.rankAt(position));
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

// Reduce-scatter: at step t the rank at position i sends label (i + offset - t - 1), which its
// successor reduces; after p-1 steps position i holds label (i + offset) complete.
void appendReduceScatter(Schedule& s, const RingOrder& order, int offset) {
  const int p = order.size();
  for (int t = 0; t < p - 1; ++t) {
    Step step{"reduce-scatter", {}};
    for (int i = 0; i < p; ++i) {
      const std::uint32_t block = blockAt(order, static_cast<long>(i) + offset - t - 1);
      step.transfers.push_back({order.rankAt(i), order.rankAt(i + 1L), block, block + 1,
                                RecvMode::Reduce});
    }
    s.steps.push_back(std::move(step));
  }
}

// Allgather: position i starts with label (i + offset) and at step t forwards label
// (i + offset - t), which its successor copies.
void appendAllGather(Schedule& s, const RingOrder& order, int offset) {
  const int p = order.size();
  for (int t = 0; t < p - 1; ++t) {
    Step step{"allgather", {}};
    for (int i = 0; i < p; ++i) {
      const std::uint32_t block = blockAt(order, static_cast<long>(i) + offset - t);
      step.transfers.push_back({order.rankAt(i), order.rankAt(i + 1L), block, block + 1,
                                RecvMode::Copy});
    }
    s.steps.push_back(std::move(step));
  }
}

std::vector<int> ownersAfterReduceScatter(const RingOrder& order, int offset) {
  std::vector<int> owner(order.size());
  for (int i = 0; i < order.size(); ++i) owner[blockAt(order, static_cast<long>(i) + offset)] = order.rankAt(i);
  return owner;
}

}  // namespace

Schedule ringReduceScatter(const RingOrder& order, int offset) {
  Schedule s = emptySchedule(order, Collective::ReduceScatter);
  s.blockOwner = ownersAfterReduceScatter(order, offset);
  appendReduceScatter(s, order, offset);
  return s;
}

Schedule ringAllGather(const RingOrder& order, int offset) {
  Schedule s = emptySchedule(order, Collective::AllGather);
  s.blockOwner = ownersAfterReduceScatter(order, offset);
  appendAllGather(s, order, offset);
  return s;
}

Schedule ringAllReduce(const RingOrder& order, int offset) {
  Schedule s = emptySchedule(order, Collective::AllReduce);
  appendReduceScatter(s, order, offset);
  appendAllGather(s, order, offset);
  return s;
}

}  // namespace ringlab::schedule
