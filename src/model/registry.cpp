#include "ringlab/model/registry.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <mutex>
#include <utility>

#include "ringlab/core/error.hpp"
#include "ringlab/schedule/binomial_tree.hpp"
#include "ringlab/schedule/pairwise_exchange.hpp"
#include "ringlab/schedule/rabenseifner.hpp"
#include "ringlab/schedule/recursive_doubling.hpp"
#include "ringlab/schedule/ring_shape.hpp"
#include "ringlab/schedule/verify.hpp"

namespace ringlab::model {
namespace {

using schedule::AlgorithmSpec;
using schedule::Collective;

// Allreduce-only builders of the algorithms that take no parameters.
template <schedule::Schedule (*allReduce)(int)>
schedule::Schedule noParameters(Collective, int p, const AlgorithmSpec&) {
  return allReduce(p);
}

std::uint64_t ringPeriod(int p) {
  return static_cast<std::uint64_t>(p);  // chunks of ceil(count / p)
}
std::uint64_t blockPeriod(int p) {
  return std::bit_floor(static_cast<std::uint64_t>(p));  // 2^floor(lg p) blocks
}
std::uint64_t wholeVector(int) {
  return 1;
}

// Transfer counts: rings move p transfers per channel in each of 2(p-1) steps; the butterflies
// and trees move at most p per step in about 2 lg p + 2 steps; hierarchical about 2p per rank.
std::uint64_t ringTransfers(int p, const AlgorithmSpec& spec) {
  return static_cast<std::uint64_t>(p) * schedule::ringAllReduceSteps(p) *
         static_cast<std::uint64_t>(std::max(1, spec.channels));
}
std::uint64_t logTransfers(int p, const AlgorithmSpec&) {
  const std::uint64_t n = static_cast<std::uint64_t>(p);
  const std::uint64_t lg = std::max<std::uint64_t>(1, std::bit_width(n - 1));  // ceil(lg p)
  return n * (2 * lg + 2);
}
std::uint64_t squareTransfers(int p, const AlgorithmSpec&) {
  return 2 * static_cast<std::uint64_t>(p) * static_cast<std::uint64_t>(p);
}

// The binomial tree's collectives: the reduce and broadcast halves of its AllReduce, from a root.
schedule::Schedule binomialTreeFromSpec(Collective collective, int p, const AlgorithmSpec& spec) {
  switch (collective) {
    case Collective::Reduce:
      return schedule::binomialTreeReduce(p, spec.root);
    case Collective::Broadcast:
      return schedule::binomialTreeBroadcast(p, spec.root);
    default:
      return schedule::binomialTreeAllReduce(p);
  }
}

constexpr unsigned kRingCollectives = collectiveBit(Collective::AllReduce) |
                                      collectiveBit(Collective::ReduceScatter) |
                                      collectiveBit(Collective::AllGather);
constexpr unsigned kTreeCollectives = collectiveBit(Collective::AllReduce) |
                                      collectiveBit(Collective::Reduce) |
                                      collectiveBit(Collective::Broadcast);

// The built-in algorithms: the one table. The four AllReduce algorithms with closed forms are
// the candidates of `auto` and `tune`, in the order tables list them; the ModelClosedForm tests
// hold each closed form equal to its schedule's cost. The first entry that builds a collective is
// the one `auto` runs for it (defaultAlgorithm).
AlgorithmTable builtIns() {
  const auto entry = [](Algorithm a) { return std::make_shared<const Algorithm>(std::move(a)); };
  return {
      entry({.name = schedule::kRing,
             .specFields = kRingOrderField,
             .collectives = kRingCollectives,
             .build = schedule::ringFromSpec,
             .closedForm = ringAllReduceCost,
             .countPeriod = ringPeriod,
             .candidate = true,
             .openMpiAllreduceId = 4,
             .mpichName = "ring",
             .transfers = ringTransfers,
             .collectiveClosedForms = {{Collective::ReduceScatter, ringReduceScatterCost},
                                       {Collective::AllGather, ringAllGatherCost}}}),
      entry({.name = "recursive_doubling",
             .build = noParameters<schedule::recursiveDoublingAllReduce>,
             .closedForm = recursiveDoublingCost,
             .countPeriod = wholeVector,
             .candidate = true,
             .openMpiAllreduceId = 3,
             .mpichName = "recursive_doubling",
             .transfers = logTransfers}),
      entry({.name = "rabenseifner",
             .build = noParameters<schedule::rabenseifnerAllReduce>,
             .closedForm = rabenseifnerCost,
             .countPeriod = blockPeriod,
             .candidate = true,
             .openMpiAllreduceId = 6,
             .mpichName = "reduce_scatter_allgather",
             .transfers = logTransfers}),
      // Open MPI's 2 (nonoverlapping) is a reduce then a broadcast too, over its own trees.
      // MPICH's "tree" is a pipelined k-ary tree set by further variables: no equivalent.
      entry({.name = "binomial_tree",
             .collectives = kTreeCollectives,
             .build = binomialTreeFromSpec,
             .closedForm = binomialTreeCost,
             .countPeriod = wholeVector,
             .candidate = true,
             .openMpiAllreduceId = 2,
             .transfers = logTransfers,
             .collectiveClosedForms = {{Collective::Reduce, binomialTreeReduceCost},
                                       {Collective::Broadcast, binomialTreeBroadcastCost}}}),
      entry({.name = schedule::kMultiRing,
             .specFields = kRingOrderField | kChannelsField,
             .build = [](Collective, int p,
                         const AlgorithmSpec& s) { return schedule::multiRingFromSpec(p, s); },
             .transfers = ringTransfers}),
      entry({.name = schedule::kHierarchical,
             .specFields = kRanksPerNodeField,
             .build = [](Collective, int p,
                         const AlgorithmSpec& s) { return schedule::hierarchicalFromSpec(p, s); },
             .transfers = squareTransfers}),
      entry({.name = schedule::kPairwiseExchange,
             .collectives = collectiveBit(Collective::AllToAll),
             .build = [](Collective, int p,
                         const AlgorithmSpec&) { return schedule::pairwiseExchangeAllToAll(p); },
             .transfers = squareTransfers,
             .collectiveClosedForms = {{Collective::AllToAll, pairwiseExchangeCost}}}),
  };
}

// One published state: the table, and its candidates' entries in table order (what "auto" walks
// on every call, without the table's indirections).
struct Published {
  AlgorithmTable table;
  std::vector<const Algorithm*> candidates;
};

// Writers take the mutex and publish a new state; readers load the pointer without a lock.
struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<const Published>> published;  // all kept: readers may hold one
  std::atomic<const Published*> current{nullptr};
  std::size_t builtInCount = 0;

  Registry() {
    publish(builtIns());
    builtInCount = current.load()->table.size();
  }
  void publish(AlgorithmTable table) {
    auto next = std::make_unique<Published>();
    for (const auto& a : table) {
      if (a->candidate) next->candidates.push_back(a.get());
    }
    next->table = std::move(table);
    published.push_back(std::move(next));
    current.store(published.back().get(), std::memory_order_release);
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

const Algorithm* lookup(const AlgorithmTable& table, const std::string& name) {
  for (const auto& a : table) {
    if (a->name == name) return a.get();
  }
  return nullptr;
}

void rejectUnused(const Algorithm& a, const AlgorithmSpec& spec) {
  const std::string who = "algorithm '" + a.name + "'";
  if (!(a.specFields & kRingOrderField) && !spec.ringOrder.empty()) {
    throwInvalid(who + " takes no ring order: ring orders apply to ring and multi_ring");
  }
  if (!(a.specFields & kRingOrderField) && spec.ownershipOffset != 0) {
    throwInvalid(who + " takes no ownership offset (" + std::to_string(spec.ownershipOffset) +
                 "): offsets apply to ring and multi_ring");
  }
  if (!(a.specFields & kChannelsField) && (spec.channels != 1 || !spec.channelOrders.empty())) {
    throwInvalid(who + " runs one channel, but was given " + std::to_string(spec.channels) +
                 " channels and " + std::to_string(spec.channelOrders.size()) +
                 " channel orders: channels apply to multi_ring");
  }
  if (!(a.specFields & kRanksPerNodeField) && spec.ranksPerNode != 0) {
    throwInvalid(who + " takes no ranks per node (" + std::to_string(spec.ranksPerNode) +
                 "): ranks per node applies to hierarchical");
  }
}

}  // namespace

const AlgorithmTable& algorithmTable() {
  return registry().current.load(std::memory_order_acquire)->table;
}

const std::vector<const Algorithm*>& candidateTable() {
  return registry().current.load(std::memory_order_acquire)->candidates;
}

void registerAlgorithm(Algorithm algorithm) {
  if (algorithm.name.empty() || algorithm.name == kAutoAlgorithm)
    throwInvalid("algorithm name '" + algorithm.name + "': give a name other than '' and 'auto'");
  if (!algorithm.build) throwInvalid("algorithm '" + algorithm.name + "' has no schedule builder");
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  if (lookup(algorithmTable(), algorithm.name))
    throwInvalid("algorithm '" + algorithm.name + "' is already registered");
  AlgorithmTable next = algorithmTable();
  next.push_back(std::make_shared<const Algorithm>(std::move(algorithm)));
  r.publish(std::move(next));
}

void unregisterAlgorithm(const std::string& name) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  AlgorithmTable next = algorithmTable();
  const auto it =
      std::find_if(next.begin(), next.end(), [&](const auto& a) { return a->name == name; });
  if (it == next.end()) throwInvalid("algorithm '" + name + "' is not registered");
  if (static_cast<std::size_t>(it - next.begin()) < r.builtInCount)
    throwInvalid("algorithm '" + name + "' is built in: only run-time registrations can go");
  next.erase(it);
  r.publish(std::move(next));
}

const Algorithm& findAlgorithm(const std::string& name) {
  if (const Algorithm* a = lookup(algorithmTable(), name)) return *a;
  throwInvalid("unknown algorithm '" + name + "': valid are " + joinedNames(algorithmNames()));
}

std::vector<std::string> algorithmNames(Collective collective) {
  std::vector<std::string> names;
  for (const auto& a : algorithmTable()) {
    if (a->collectives & collectiveBit(collective)) names.push_back(a->name);
  }
  return names;
}

const Algorithm& defaultAlgorithm(Collective collective) {
  for (const auto& a : algorithmTable()) {
    if (a->collectives & collectiveBit(collective)) return *a;
  }
  throwInvalid(std::string("no registered algorithm builds ") + collectiveName(collective));
}

std::vector<std::string> candidateAlgorithms() {
  std::vector<std::string> names;
  for (const Algorithm* a : candidateTable()) names.push_back(a->name);
  return names;
}

std::string joinedNames(const std::vector<std::string>& names, const std::string& separator) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : separator) + name;
  return out;
}

schedule::Schedule buildSchedule(Collective collective, int ranks, const AlgorithmSpec& spec) {
  const Algorithm& a = findAlgorithm(spec.name);
  if (ranks < a.minRanks) {
    throwInvalid("p = " + std::to_string(ranks) + ": algorithm '" + a.name +
                 "' needs p >= " + std::to_string(a.minRanks));
  }
  rejectUnused(a, spec);
  if (!(a.collectives & collectiveBit(collective))) {
    std::vector<std::string> built;
    for (Collective c : schedule::kAllCollectives) {
      if (a.collectives & collectiveBit(c)) built.push_back(collectiveName(c));
    }
    throwInvalid("algorithm '" + a.name + "' builds " + joinedNames(built) +
                 (built.size() == 1 ? " only" : "") + ", not " + collectiveName(collective) +
                 ": use " + joinedNames(algorithmNames(collective), " or ") + " for " +
                 collectiveName(collective));
  }
  if (!schedule::hasRoot(collective) && spec.root != 0) {
    throwInvalid("root " + std::to_string(spec.root) + ": " + collectiveName(collective) +
                 " has no root; roots apply to reduce and broadcast");
  }
  schedule::Schedule s = a.build(collective, ranks, spec);
  // A run-time builder (one written in Python, say) may answer another question than was asked.
  if (s.ranks != ranks || s.collective != collective) {
    throwInvalid("algorithm '" + a.name + "' built a schedule of " + collectiveName(s.collective) +
                 " at p = " + std::to_string(s.ranks) + " when asked for " +
                 collectiveName(collective) + " at p = " + std::to_string(ranks));
  }
  // The schedule carries the name it was built under: the entry's, whatever its builder wrote (a
  // builder registered again under a new name builds schedules of that name).
  s.algorithm = a.name;
  schedule::verifyOrThrow(s);
  return s;
}

std::uint64_t countPeriod(const std::string& algorithm, int p) {
  const Algorithm& a = findAlgorithm(algorithm);
  if (a.countPeriod) return a.countPeriod(p);
  AlgorithmSpec spec;
  spec.name = algorithm;
  return buildSchedule(Collective::AllReduce, p, spec).blocks;
}

std::uint64_t scheduleTransfers(const AlgorithmSpec& spec, int p) {
  const Algorithm& a = findAlgorithm(spec.name);
  return a.transfers ? a.transfers(p, spec) : squareTransfers(p, spec);
}

int openMpiAllreduceAlgorithm(const std::string& algorithm) {
  const Algorithm* a = lookup(algorithmTable(), algorithm);
  return a ? a->openMpiAllreduceId : 0;
}

}  // namespace ringlab::model
