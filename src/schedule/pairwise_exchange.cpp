#include "ringlab/schedule/pairwise_exchange.hpp"

#include <cstdint>
#include <string>

#include "ringlab/core/error.hpp"

namespace ringlab::schedule {

Schedule pairwiseExchangeAllToAll(int ranks) {
  // p^2 blocks must fit the block index: p up to 65535.
  if (ranks < 1 || ranks > 65535) {
    throwInvalid("p = " + std::to_string(ranks) +
                 ": a pairwise-exchange alltoall takes 1..65535 ranks");
  }
  const auto p = static_cast<std::uint32_t>(ranks);
  Schedule s;
  s.algorithm = kPairwiseExchange;
  s.collective = Collective::AllToAll;
  s.ranks = ranks;
  s.blocks = p * p;
  s.blockOwner.resize(s.blocks);
  for (std::uint32_t b = 0; b < s.blocks; ++b) s.blockOwner[b] = static_cast<int>(b / p);
  for (std::uint32_t k = 1; k < p; ++k) {
    Step step{"exchange", {}};
    for (std::uint32_t r = 0; r < p; ++r) {
      const std::uint32_t to = (r + k) % p, block = r * p + to;
      step.transfers.push_back(
          {static_cast<int>(r), static_cast<int>(to), block, block + 1, RecvMode::Copy});
    }
    s.steps.push_back(std::move(step));
  }
  return s;
}

}  // namespace ringlab::schedule
