// GET /api/orbit: panel 1's walk x -> (x + a) mod m from 0. The residues come from the same
// strideOrbit that RingOrder::fromStride uses, so the arithmetic lab and the ring check agree by
// construction.
#include <numeric>

#include "api.hpp"
#include "ringlab/schedule/ring_order.hpp"

namespace ringlab::lab {

// Any step a whose value fits comfortably in an int; it is reduced mod m anyway.
inline constexpr long long kMaxStep = 1'000'000'000;

nlohmann::json orbitApi(const Params& params) {
  params.allowOnly({"m", "a"});
  const int m = static_cast<int>(params.integer("m", 1, kMaxModulus));
  const int a = static_cast<int>(params.integer("a", -kMaxStep, kMaxStep));
  const std::vector<int> orbit = schedule::strideOrbit(m, a);
  const int reduced = ((a % m) + m) % m;
  // gcd(m, 0) = m: a = 0 stays at 0, period m / m = 1.
  const int g = std::gcd(m, reduced);
  return {{"m", m},
          {"a", a},
          {"a_mod_m", reduced},
          {"gcd", g},
          {"orbit", orbit},
          {"period", orbit.size()},
          {"covers_all", static_cast<int>(orbit.size()) == m}};
}

}  // namespace ringlab::lab
