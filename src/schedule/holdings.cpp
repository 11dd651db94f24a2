#include "ringlab/schedule/holdings.hpp"

#include <string>

#include "ringlab/core/error.hpp"

namespace ringlab::schedule {

std::vector<Holdings> holdingsAfterEachStep(const Schedule& s) {
  if (s.ranks < 1 || s.ranks > 32) {
    throwInvalid("holdings of p = " + std::to_string(s.ranks) + " ranks: at most 32");
  }
  const std::uint32_t all = s.ranks == 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << s.ranks) - 1;
  Holdings state(s.ranks, std::vector<std::uint32_t>(s.blocks, 0));
  for (int r = 0; r < s.ranks; ++r) {
    for (std::uint32_t b = 0; b < s.blocks; ++b) {
      // A block with a source starts complete there only; the reducing collectives start with
      // every rank holding its own contribution to every block.
      const int source = blockSource(s, b);
      if (source >= 0) {
        state[r][b] = source == r ? all : 0;
      } else {
        state[r][b] = std::uint32_t{1} << r;
      }
    }
  }
  std::vector<Holdings> out{state};
  for (const Step& step : s.steps) {
    const Holdings before = state;
    for (const Transfer& t : step.transfers) {
      for (std::uint32_t b = t.firstBlock; b < t.lastBlock; ++b) {
        std::uint32_t& into = state[t.dst][b];
        into = t.mode == RecvMode::Reduce ? (into | before[t.src][b]) : before[t.src][b];
      }
    }
    out.push_back(state);
  }
  return out;
}

}  // namespace ringlab::schedule
