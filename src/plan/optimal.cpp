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

}  // namespace

OptimalPlan optimalBuckets(const Timeline& timeline, const BucketCost& cost) {
  validate(timeline);
  const std::size_t n = timeline.tensors.size();
  std::vector<std::uint64_t> count(n + 1, 0);  // elements of tensors 0..i-1
  for (std::size_t i = 0; i < n; ++i) count[i + 1] = count[i] + timeline.tensors[i].count;
  const std::vector<CostPiece> pieces = cost.pieces();
  const auto priced = [&](std::uint64_t c) {
    double best = std::numeric_limits<double>::infinity();
    for (const CostPiece& piece : pieces) {
      if (c >= piece.minCount && c <= piece.maxCount) best = std::min(best, piece.seconds(c));
    }
    return best;
  };
  std::vector<Lane> lanes;
  for (const CostPiece& piece : pieces) lanes.emplace_back(piece, count);
  // Per lane, the window ends in j for the piece's range of counts: smallest j with
  // c_i - c_j <= maxCount, largest j with c_i - c_j >= minCount. Both only grow with i.
  std::vector<std::size_t> lo(pieces.size(), 0), hi(pieces.size(), 0);

  OptimalPlan plan;
  std::vector<double> done(n + 1, 0);       // C(i)
  std::vector<std::size_t> from(n + 1, 0);  // the j that achieves C(i): its last bucket is j..i-1
  std::size_t idle = 0;                     // the largest j < i with C(j) <= ready(i-1)
  for (std::size_t i = 1; i <= n; ++i) {
    const double ready = timeline.tensors[i - 1].ready_s;
    // C is nondecreasing, so the j that start at `ready` are a prefix, and of them the largest
    // (the smallest bucket) wins, cost being nondecreasing in bytes.
    while (idle + 1 < i && done[idle + 1] <= ready) ++idle;
    double best = ready + priced(count[i] - count[idle]);
    std::size_t bestFrom = idle;
    for (std::size_t k = 0; k < lanes.size(); ++k) {
      const CostPiece& piece = pieces[k];
      while (lo[k] < i && count[i] - count[lo[k]] > piece.maxCount) ++lo[k];
      while (hi[k] + 1 < i && count[i] - count[hi[k] + 1] >= piece.minCount) ++hi[k];
      const bool any = count[i] - count[hi[k]] >= piece.minCount;
      const std::size_t left = std::max(idle + 1, lo[k]);
      lanes[k].slide(left, any && hi[k] >= left ? hi[k] : left - 1, done);
      const auto [value, j] = lanes[k].best(count[i], plan.candidatesExamined);
      if (value < best) {
        best = value;
        bestFrom = j;
      }
    }
    done[i] = best;
    from[i] = bestFrom;
  }
  for (std::size_t i = n; i > 0; i = from[i]) plan.starts.push_back(from[i]);
  std::reverse(plan.starts.begin(), plan.starts.end());
  plan.lastDone_s = done[n];
  return plan;
}

}  // namespace ringlab::plan
