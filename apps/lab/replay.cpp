#include "replay.hpp"

#include <string>

#include "ringlab/core/error.hpp"

namespace ringlab::lab {

std::vector<Holdings> replayHoldings(const schedule::Schedule& s) {
  if (s.ranks < 1 || s.ranks > 32) {
    throwInvalid("replay of p = " + std::to_string(s.ranks) + " ranks: at most 32");
  }
  const std::uint32_t all = s.ranks == 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << s.ranks) - 1;
  Holdings state(s.ranks, std::vector<std::uint32_t>(s.blocks, 0));
  for (int r = 0; r < s.ranks; ++r) {
    for (std::uint32_t b = 0; b < s.blocks; ++b) {
      // AllGather starts with each block complete at its owner only; the reducing collectives
      // start with every rank holding its own contribution to every block.
      if (s.collective == schedule::Collective::AllGather) {
        state[r][b] = s.blockOwner[b] == r ? all : 0;
      } else {
        state[r][b] = std::uint32_t{1} << r;
      }
    }
  }
  std::vector<Holdings> out{state};
  for (const schedule::Step& step : s.steps) {
    const Holdings before = state;
    for (const schedule::Transfer& t : step.transfers) {
      for (std::uint32_t b = t.firstBlock; b < t.lastBlock; ++b) {
        std::uint32_t& into = state[t.dst][b];
        into = t.mode == schedule::RecvMode::Reduce ? (into | before[t.src][b]) : before[t.src][b];
      }
    }
    out.push_back(state);
  }
  return out;
}

}  // namespace ringlab::lab
