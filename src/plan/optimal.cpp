#include "ringlab/plan/optimal.hpp"

#include <algorithm>
#include <limits>

namespace ringlab::plan {
namespace {

// The candidates j for one cost piece, for the current i: those whose bucket j..i-1 falls in the
// piece's range of counts and that start after the stream is busy (C(j) > ready(i-1)). Write
// c_j = period * u_j + q_j. The bucket's cost is residue[(c_i - c_j) mod period] + perPeriod *
// floor((c_i - c_j) / period), so C(j) + cost = perPeriod * u_i + (C(j) - perPeriod * u_j) + a
// term of (q_i, q_j) alone. Within one residue class q_j the best j is therefore the one with
// the least key C(j) - perPeriod * u_j: a sliding-window minimum, one monotone queue per class.
class Lane {
 public:
  Lane(const CostPiece& piece, const std::vector<std::uint64_t>& count)
      : piece_(piece), count_(count), classes_(piece.period) {}

  // Moves the window to [left, right] (both only ever grow) given C for every j <= right.
  void slide(std::size_t left, std::size_t right, const std::vector<double>& done) {
    for (; left_ < left; ++left_) {
      if (left_ >= next_) break;  // never entered
      Queue& q = classes_[count_[left_] % piece_.period];
      if (q.head < q.items.size() && q.items[q.head].j == left_) ++q.head;
    }
    left_ = left;
    next_ = std::max(next_, left);
    for (; next_ <= right; ++next_) {
      const double key =
          done[next_] - piece_.perPeriod_s * static_cast<double>(count_[next_] / piece_.period);
      Queue& q = classes_[count_[next_] % piece_.period];
      while (q.items.size() > q.head && q.items.back().key >= key) q.items.pop_back();
      q.items.push_back({next_, key});
    }
  }

  // The best candidate for the bucket ending at i (count c_i), if any: (C(j) + cost, j).
  std::pair<double, std::size_t> best(std::uint64_t ci, std::size_t& examined) const {
    const std::uint64_t m = piece_.period, si = ci % m;
    const double base = piece_.perPeriod_s * static_cast<double>(ci / m);
    std::pair<double, std::size_t> out{std::numeric_limits<double>::infinity(), kNone};
    for (std::uint64_t q = 0; q < m; ++q) {
      const Queue& queue = classes_[q];
      if (queue.head == queue.items.size()) continue;
      ++examined;
      // (c_i - c_j) mod m and the borrow from the quotient when q_j > q_i.
      const double term =
          q <= si ? piece_.residue_s[si - q] : piece_.residue_s[si + m - q] - piece_.perPeriod_s;
      const double value = queue.items[queue.head].key + base + term;
      if (value < out.first) out = {value, queue.items[queue.head].j};
    }
    return out;
  }

  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

 private:
  struct Item {
    std::size_t j;
    double key;
  };
  struct Queue {
    std::vector<Item> items;  // keys increasing from head; earlier items have left the window
    std::size_t head = 0;
  };
  const CostPiece& piece_;
  const std::vector<std::uint64_t>& count_;
  std::vector<Queue> classes_;
  std::size_t left_ = 1;  // j = 0 always has C(0) = 0 <= ready: it is never a busy-start candidate
  std::size_t next_ = 1;
};

// The programme over given tensors and cost, one pass at a time.
class Search {
 public:
  Search(const Timeline& timeline, const BucketCost& cost)
      : timeline_(timeline), pieces_(cost.pieces()), count_(timeline.tensors.size() + 1, 0) {
    for (std::size_t i = 0; i < timeline.tensors.size(); ++i)
      count_[i + 1] = count_[i] + timeline.tensors[i].count;
  }

  struct Pass {
    std::vector<double> done;       // C(i)
    std::vector<std::size_t> from;  // the j that achieves C(i): its last bucket is j..i-1
  };

  // done[i] = min over j < i of max(before[j], ready(i-1)) + cost(tensors j..i-1). With `before`
  // null it is done itself (any number of buckets); with the best completions in at most k-1
  // buckets, the result is the best in at most k. Either way `before` is nondecreasing, which the
  // idle prefix and the lanes rely on.
  Pass run(const std::vector<double>* before, std::size_t& examined) const {
    const std::size_t n = timeline_.tensors.size();
    Pass pass{std::vector<double>(n + 1, 0), std::vector<std::size_t>(n + 1, 0)};
    const std::vector<double>& prior = before ? *before : pass.done;
    std::vector<Lane> lanes;
    for (const CostPiece& piece : pieces_) lanes.emplace_back(piece, count_);
    // Per lane, the window ends in j for the piece's range of counts: smallest j with
    // c_i - c_j <= maxCount, largest j with c_i - c_j >= minCount. Both only grow with i.
    std::vector<std::size_t> lo(pieces_.size(), 0), hi(pieces_.size(), 0);
    std::size_t idle = 0;  // the largest j < i with C(j) <= ready(i-1)
    for (std::size_t i = 1; i <= n; ++i) {
      const double ready = timeline_.tensors[i - 1].ready_s;
      // C is nondecreasing, so the j that start at `ready` are a prefix, and of them the largest
      // (the smallest bucket) wins, cost being nondecreasing in bytes.
      while (idle + 1 < i && prior[idle + 1] <= ready) ++idle;
      double best = ready + priced(count_[i] - count_[idle]);
      std::size_t bestFrom = idle;
      for (std::size_t k = 0; k < lanes.size(); ++k) {
        const CostPiece& piece = pieces_[k];
        while (lo[k] < i && count_[i] - count_[lo[k]] > piece.maxCount) ++lo[k];
        while (hi[k] + 1 < i && count_[i] - count_[hi[k] + 1] >= piece.minCount) ++hi[k];
        const bool any = count_[i] - count_[hi[k]] >= piece.minCount;
        const std::size_t left = std::max(idle + 1, lo[k]);
        lanes[k].slide(left, any && hi[k] >= left ? hi[k] : left - 1, prior);
        const auto [value, j] = lanes[k].best(count_[i], examined);
        if (value < best) {
          best = value;
          bestFrom = j;
        }
      }
      pass.done[i] = best;
      pass.from[i] = bestFrom;
    }
    return pass;
  }

 private:
  double priced(std::uint64_t c) const {
    double best = std::numeric_limits<double>::infinity();
    for (const CostPiece& piece : pieces_) {
      if (c >= piece.minCount && c <= piece.maxCount) best = std::min(best, piece.seconds(c));
    }
    return best;
  }

  const Timeline& timeline_;
  std::vector<CostPiece> pieces_;
  std::vector<std::uint64_t> count_;  // elements of tensors 0..i-1
};

// The fewest buckets whose last is done by `deadline`, one more bucket per pass: pass k holds the
// best completion of every prefix in at most k buckets, so the first pass to meet the deadline
// has the fewest (and of those plans, the earliest done). `plan` is left as it is when no pass
// below its own count meets the deadline (it has the fewest), or when kTieBreakPasses run out
// first: then false.
bool fewestBuckets(const Search& search, std::size_t n, double deadline, OptimalPlan& plan) {
  std::vector<std::vector<std::size_t>> from;  // per pass
  std::vector<double> done(n + 1, std::numeric_limits<double>::infinity());
  done[0] = 0;  // no tensors in no buckets
  for (std::size_t k = 1; k < plan.starts.size(); ++k) {
    if (k > kTieBreakPasses) return false;
    Search::Pass pass = search.run(&done, plan.candidatesExamined);
    done = std::move(pass.done);
    from.push_back(std::move(pass.from));
    if (done[n] > deadline) continue;
    plan.starts.clear();
    for (std::size_t i = n, layer = k; i > 0; --layer) {
      i = from[layer - 1][i];
      plan.starts.push_back(i);
    }
    std::reverse(plan.starts.begin(), plan.starts.end());
    plan.lastDone_s = done[n];
    return true;
  }
  return true;
}

}  // namespace

OptimalPlan optimalBuckets(const Timeline& timeline, const BucketCost& cost) {
  validate(timeline);
  const std::size_t n = timeline.tensors.size();
  const Search search(timeline, cost);
  OptimalPlan plan;
  const Search::Pass any = search.run(nullptr, plan.candidatesExamined);
  for (std::size_t i = n; i > 0; i = any.from[i]) plan.starts.push_back(any.from[i]);
  std::reverse(plan.starts.begin(), plan.starts.end());
  plan.lastDone_s = any.done[n];
  // Every plan done by the backward's end (or by the optimum, if later) predicts the same
  // iteration; of those, the one with the fewest buckets, since each costs a launch and a hook.
  const double deadline = std::max(plan.lastDone_s, timeline.backwardEnd_s);
  plan.fewest = fewestBuckets(search, n, deadline * (1 + 1e-12), plan);
  return plan;
}

}  // namespace ringlab::plan
