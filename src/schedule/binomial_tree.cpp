#include "ringlab/schedule/binomial_tree.hpp"

#include <string>

#include "ringlab/core/error.hpp"

namespace ringlab::schedule {
namespace {

Schedule emptyTree(Collective collective, int ranks, int root) {
  if (ranks < 1)
    throwInvalid("p = " + std::to_string(ranks) + ": the number of ranks must be >= 1");
  if (root < 0 || root >= ranks) {
    throwInvalid("root " + std::to_string(root) + ": must be a rank of 0.." +
                 std::to_string(ranks - 1));
  }
  Schedule s;
  s.algorithm = "binomial_tree";
  s.collective = collective;
  s.ranks = ranks;
  s.blocks = 1;
  if (collective != Collective::AllReduce) s.blockOwner = {root};
  return s;
}

// The rank at relative position v of a tree rooted at `root`.
int atPosition(int v, int root, int ranks) {
  return (v + root) % ranks;
}

// The reduce rounds, distances 1, 2, 4, ... below p: the children fold into their parents.
void appendReduce(Schedule& s, int root) {
  for (int d = 1; d < s.ranks; d *= 2) {
    Step step{"reduce", {}};
    for (int v = d; v < s.ranks; v += 2 * d) {
      step.transfers.push_back(
          {atPosition(v, root, s.ranks), atPosition(v - d, root, s.ranks), 0, 1, RecvMode::Reduce});
    }
    s.steps.push_back(std::move(step));
  }
}

// The same rounds in reverse, from the largest distance below p: the parents copy to children.
void appendBroadcast(Schedule& s, int root) {
  int top = 1;
  while (top * 2 < s.ranks) top *= 2;
  for (int d = top; d >= 1 && s.ranks > 1; d /= 2) {
    Step step{"broadcast", {}};
    for (int v = 0; v + d < s.ranks; v += 2 * d) {
      step.transfers.push_back(
          {atPosition(v, root, s.ranks), atPosition(v + d, root, s.ranks), 0, 1, RecvMode::Copy});
    }
    s.steps.push_back(std::move(step));
  }
}

}  // namespace

Schedule binomialTreeReduce(int ranks, int root) {
  Schedule s = emptyTree(Collective::Reduce, ranks, root);
  appendReduce(s, root);
  return s;
}

Schedule binomialTreeBroadcast(int ranks, int root) {
  Schedule s = emptyTree(Collective::Broadcast, ranks, root);
  appendBroadcast(s, root);
  return s;
}

Schedule binomialTreeAllReduce(int ranks) {
  Schedule s = emptyTree(Collective::AllReduce, ranks, 0);
  appendReduce(s, 0);
  appendBroadcast(s, 0);
  return s;
}

}  // namespace ringlab::schedule
