#pragma once
// The logical ring: which rank sits at each position. All ring index arithmetic (next, previous,
// positions modulo p, strides) lives here and in ring.cpp, nowhere else.
#include <string>
#include <string_view>
#include <vector>

namespace ringlab::schedule {

// The residues 0, a, 2a, ... (mod m) visited from 0 before the walk returns to 0. Its length is
// m / gcd(m, a): the whole set of m residues only when gcd(m, a) = 1.
std::vector<int> strideOrbit(int m, int stride);

class RingOrder {
 public:
  static RingOrder identity(int ranks);
  // Throws InvalidArgument unless `order` is a permutation of 0..ranks-1.
  static RingOrder fromList(const std::vector<int>& order, int ranks);
  // "0,2,4,6,1,3,5,7"; throws on non-numeric entries as well as non-permutations.
  static RingOrder parse(std::string_view list, int ranks);
  // The list's numbers, for any p: throws on non-numeric entries only (fromList checks the rest).
  static std::vector<int> parseList(std::string_view list);
  // i -> i*stride mod p. Throws InvalidArgument, naming the short orbit and its period, when the
  // stride shares a factor with p: such a "ring" is a shorter cycle that leaves ranks out.
  static RingOrder fromStride(int ranks, int stride);

  int size() const { return static_cast<int>(order_.size()); }
  // Rank at `position`, with position taken modulo p (negative positions too).
  int rankAt(long position) const;
  int positionOf(int rank) const { return position_[rank]; }
  int next(int rank) const { return rankAt(positionOf(rank) + 1L); }
  int previous(int rank) const { return rankAt(positionOf(rank) - 1L); }
  const std::vector<int>& ranks() const { return order_; }
  // The same cycle walked the other way from the same first rank: every link used in the
  // opposite direction (NCCL's second ring on a bidirectional fabric).
  RingOrder reversed() const;
  // This ring's positions visited 0, a, 2a, ... (mod p): fromStride applied on top of this order.
  // Throws as fromStride does when the stride shares a factor with p.
  RingOrder strided(int stride) const;
  std::string toString() const;  // "0,1,2,3"

 private:
  explicit RingOrder(std::vector<int> order);
  std::vector<int> order_;
  std::vector<int> position_;
};

}  // namespace ringlab::schedule
