#include "log_figures.hpp"

#include <algorithm>
#include <cmath>

#include "ringlab/core/text.hpp"

namespace ringlab::record::logs {
namespace {

// Slack for the floating-point sums below: far under any printed digit.
constexpr double kSlack = 1e-9;

}  // namespace

Figure parseFigure(const std::string& text, std::string_view what) {
  const double value = parseNumber(text, what);
  const std::size_t exponentAt = text.find_first_of("eE");
  const std::string mantissa = text.substr(0, exponentAt);
  const std::size_t dot = mantissa.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(mantissa.size() - dot - 1);
  const int exponent = exponentAt == std::string::npos
                           ? 0
                           : static_cast<int>(parseNumber(text.substr(exponentAt + 1), what));
  return {value, 0.5 * std::pow(10.0, exponent - decimals)};
}

bool algbwAgrees(std::uint64_t bytes, const Figure& time, double secondsPerUnit,
                 const Figure& algbw) {
  const auto gbps = [&](double t) {
    return t <= 0 ? HUGE_VAL : static_cast<double>(bytes) / (t * secondsPerUnit) / 1e9;
  };
  const double fastest = gbps(time.value - time.rounding);
  const double slowest = gbps(time.value + time.rounding);
  const double low = algbw.value - algbw.rounding, high = algbw.value + algbw.rounding;
  return slowest <= high * (1 + kSlack) && fastest >= low * (1 - kSlack);
}

RanksAllowed allReduceRanksAllowed(const Figure& algbw, const Figure& busbw) {
  const double algbwLow = algbw.value - algbw.rounding;
  if (algbwLow <= 0) return {};  // too coarse to bound the ratio above
  const double low = std::max(0.0, (busbw.value - busbw.rounding) / (algbw.value + algbw.rounding));
  const double high = (busbw.value + busbw.rounding) / algbwLow;
  // 2(p-1)/p >= low  <=>  p >= 2 / (2 - low); 2(p-1)/p <= high  <=>  p <= 2 / (2 - high).
  RanksAllowed allowed;
  if (low >= 2) return {kAnyRanks, 1};
  if (low > kSlack) allowed.low = static_cast<int>(std::ceil(2 / (2 - low) - kSlack));
  if (high < 2) allowed.high = static_cast<int>(std::floor(2 / (2 - high) + kSlack));
  return allowed;
}

}  // namespace ringlab::record::logs
