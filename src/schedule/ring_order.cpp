#include "ringlab/schedule/ring_order.hpp"

#include <charconv>
#include <numeric>
#include <string>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::schedule {
namespace {

void checkRanks(int ranks) {
  if (ranks < 1)
    throwInvalid("p = " + std::to_string(ranks) + ": the number of ranks must be >= 1");
}

std::string joinInts(const std::vector<int>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(values[i]);
  }
  return out;
}

}  // namespace

std::vector<int> strideOrbit(int m, int stride) {
  checkRanks(m);
  std::vector<int> orbit;
  const int step = ((stride % m) + m) % m;
  int x = 0;
  do {
    orbit.push_back(x);
    x = (x + step) % m;
  } while (x != 0);
  return orbit;
}

RingOrder::RingOrder(std::vector<int> order) : order_(std::move(order)), position_(order_.size()) {
  for (std::size_t i = 0; i < order_.size(); ++i) position_[order_[i]] = static_cast<int>(i);
}

RingOrder RingOrder::identity(int ranks) {
  checkRanks(ranks);
  std::vector<int> order(ranks);
  std::iota(order.begin(), order.end(), 0);
  return RingOrder(std::move(order));
}

RingOrder RingOrder::fromList(const std::vector<int>& order, int ranks) {
  checkRanks(ranks);
  const std::string shown = "ring order '" + joinInts(order) + "'";
  if (static_cast<int>(order.size()) != ranks) {
    throwInvalid(shown + " has " + std::to_string(order.size()) +
                 " entries: it must list each of " + "the p = " + std::to_string(ranks) +
                 " ranks 0.." + std::to_string(ranks - 1) + " exactly once");
  }
  std::vector<bool> seen(ranks, false);
  for (int r : order) {
    if (r < 0 || r >= ranks) {
      throwInvalid(shown + ": rank " + std::to_string(r) + " is out of range 0.." +
                   std::to_string(ranks - 1));
    }
    if (seen[r]) {
      throwInvalid(shown + ": rank " + std::to_string(r) +
                   " appears twice; each rank must appear exactly once");
    }
    seen[r] = true;
  }
  return RingOrder(order);
}

RingOrder RingOrder::parse(std::string_view list, int ranks) {
  return fromList(parseList(list), ranks);
}

std::vector<int> RingOrder::parseList(std::string_view list) {
  std::vector<int> order;
  // An empty list is one empty item, refused like any other that is not a number.
  for (const std::string& item : list.empty() ? std::vector<std::string>{""} : splitList(list)) {
    int value = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size()) {
      throwInvalid("ring order '" + std::string(list) + "': '" + item +
                   "' is not a rank number; give a comma-separated permutation such as 0,2,1,3");
    }
    order.push_back(value);
  }
  return order;
}

RingOrder RingOrder::fromStride(int ranks, int stride) {
  checkRanks(ranks);
  if (stride < 1) {
    throwInvalid("ring stride " + std::to_string(stride) +
                 " must be >= 1 (and coprime with p = " + std::to_string(ranks) + ")");
  }
  const std::vector<int> orbit = strideOrbit(ranks, stride);
  if (static_cast<int>(orbit.size()) != ranks) {
    const int g = std::gcd(ranks, stride);
    throwInvalid(
        "ring stride " + std::to_string(stride) + " shares the factor " + std::to_string(g) +
        " with p = " + std::to_string(ranks) + ": from rank 0 it visits only " + joinInts(orbit) +
        " (period " + std::to_string(orbit.size()) + " = p/gcd(p,a) = " + std::to_string(ranks) +
        "/" + std::to_string(g) + ") and never reaches the other " +
        std::to_string(ranks - static_cast<int>(orbit.size())) +
        " ranks; a shorter cycle is not a faster AllReduce, it reduces over the wrong set. "
        "Use a stride coprime with p");
  }
  return RingOrder(orbit);
}

int RingOrder::rankAt(long position) const {
  const long p = static_cast<long>(order_.size());
  return order_[static_cast<std::size_t>(((position % p) + p) % p)];
}

RingOrder RingOrder::reversed() const {
  std::vector<int> order(order_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = rankAt(-static_cast<long>(i));
  return RingOrder(std::move(order));
}

RingOrder RingOrder::strided(int stride) const {
  const RingOrder walk = fromStride(size(), stride);
  std::vector<int> order(order_.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = rankAt(walk.rankAt(static_cast<long>(i)));
  return RingOrder(std::move(order));
}

std::string RingOrder::toString() const {
  return joinInts(order_);
}

}  // namespace ringlab::schedule
