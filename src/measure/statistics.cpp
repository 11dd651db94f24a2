#include "ringlab/measure/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/model/fit.hpp"

namespace ringlab::measure {

Timing summarise(const std::vector<double>& seconds, bool keepSamples) {
  if (seconds.empty()) throwInvalid("no iterations to summarise: at least one is needed");
  Timing t;
  t.iterations = static_cast<int>(seconds.size());
  t.timeUs = model::median(seconds) * 1e6;
  const auto [lo, hi] = std::minmax_element(seconds.begin(), seconds.end());
  t.minUs = *lo * 1e6;
  t.maxUs = *hi * 1e6;
  t.meanUs = std::accumulate(seconds.begin(), seconds.end(), 0.0) / seconds.size() * 1e6;
  if (keepSamples) {
    t.samplesUs.reserve(seconds.size());
    for (double s : seconds) t.samplesUs.push_back(s * 1e6);
  }
  return t;
}

namespace {
constexpr Statistic kStatistics[] = {Statistic::Median, Statistic::Min, Statistic::Max,
                                     Statistic::Mean};
}  // namespace

const char* statisticName(Statistic s) {
  switch (s) {
    case Statistic::Median:
      return "median";
    case Statistic::Min:
      return "min";
    case Statistic::Max:
      return "max";
    case Statistic::Mean:
      return "mean";
  }
  return "?";
}

double statisticUs(const Timing& t, Statistic s) {
  switch (s) {
    case Statistic::Median:
      return t.timeUs;
    case Statistic::Min:
      return t.minUs;
    case Statistic::Max:
      return t.maxUs;
    case Statistic::Mean:
      return t.meanUs;
  }
  return 0;
}

std::vector<Statistic> parseStatistics(const std::string& list) {
  std::vector<Statistic> chosen;
  for (const std::string& name : splitList(list)) {
    const auto* known = std::find_if(std::begin(kStatistics), std::end(kStatistics),
                                     [&](Statistic s) { return name == statisticName(s); });
    if (known == std::end(kStatistics)) {
      throwInvalid("--stats " + list + ": unknown statistic '" + name +
                   "'; valid are median, min, max, mean");
    }
    if (std::find(chosen.begin(), chosen.end(), *known) != chosen.end())
      throwInvalid("--stats " + list + ": '" + name + "' is listed twice");
    chosen.push_back(*known);
  }
  if (chosen.empty())
    throwInvalid("--stats '" + list + "': name at least one of median, min, max, mean");
  return chosen;
}

namespace {

// P(|T| <= t) for Student's t with df degrees of freedom, in closed form for integer df
// (Abramowitz and Stegun 26.7.3 for odd df, 26.7.4 for even): a finite series in cos(theta),
// theta = atan(t / sqrt(df)), of df / 2 terms.
double studentTCoverage(double t, int df) {
  const double theta = std::atan(t / std::sqrt(static_cast<double>(df)));
  const double c2 = std::cos(theta) * std::cos(theta);
  if (df % 2 == 0) {
    double term = 1, sum = 1;
    for (int k = 2; k <= df - 2; k += 2) sum += term *= c2 * (k - 1) / k;
    return std::sin(theta) * sum;
  }
  double term = std::cos(theta), sum = df > 1 ? term : 0;
  for (int k = 3; k <= df - 2; k += 2) sum += term *= c2 * (k - 1) / k;
  return 2 / std::numbers::pi * (theta + std::sin(theta) * sum);
}

// The x > 0 where the increasing `f` reaches `target`, by bisection to the last bits of a double.
template <typename F>
double solveIncreasing(const F& f, double target) {
  double low = 0, high = 1;
  while (f(high) < target && high < 1e15) high *= 2;
  for (int i = 0; i < 200 && high - low > 1e-13 * high; ++i) {
    const double middle = (low + high) / 2;
    (f(middle) < target ? low : high) = middle;
  }
  return (low + high) / 2;
}

constexpr int kExactDegreesOfFreedom = 200;

}  // namespace

double studentTQuantile(double probability, int df) {
  if (df < 1)
    throwInvalid("Student's t needs at least 1 degree of freedom, not " + std::to_string(df));
  if (!(probability > 0.5 && probability < 1))
    throwInvalid("a t quantile's probability must be in (0.5, 1), not " +
                 formatNumber(probability));
  const double coverage = 2 * probability - 1;  // P(|T| <= t)
  if (df <= kExactDegreesOfFreedom)
    return solveIncreasing([df](double t) { return studentTCoverage(t, df); }, coverage);
  // Beyond, the series grows long and t is within a Cornish-Fisher expansion of the normal
  // quantile z (P(|Z| <= z) = erf(z / sqrt 2)), to well under 1e-4.
  const double z = solveIncreasing([](double x) { return std::erf(x / std::sqrt(2.0)); }, coverage);
  const double n = df;
  return z + (z * z * z + z) / (4 * n) +
         (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n) +
         (3 * std::pow(z, 7) + 19 * std::pow(z, 5) + 17 * z * z * z - 15 * z) / (384 * n * n * n);
}

RatioInterval pairedRatioInterval(const std::vector<double>& a, const std::vector<double>& b,
                                  double confidence) {
  if (!(confidence > 0 && confidence < 1))
    throwInvalid("an interval's confidence must be in (0, 1), not " + formatNumber(confidence));
  if (a.empty() || a.size() != b.size()) {
    throwInvalid(
        "a paired ratio needs the same number of rounds on both sides, at least one; got " +
        std::to_string(a.size()) + " and " + std::to_string(b.size()));
  }
  std::vector<double> logs;
  for (std::size_t r = 0; r < a.size(); ++r) {
    if (!(a[r] > 0 && b[r] > 0))
      throwInvalid("a paired ratio needs times > 0; round " + std::to_string(r) + " has " +
                   formatNumber(a[r]) + " and " + formatNumber(b[r]));
    logs.push_back(std::log(a[r] / b[r]));
  }
  const double n = logs.size();
  const double mean = std::accumulate(logs.begin(), logs.end(), 0.0) / n;
  RatioInterval out{std::exp(mean), 0, std::numeric_limits<double>::infinity()};
  if (logs.size() < 2) return out;
  double squares = 0;
  for (double x : logs) squares += (x - mean) * (x - mean);
  const double halfWidth =
      studentTQuantile((1 + confidence) / 2, static_cast<int>(logs.size()) - 1) *
      std::sqrt(squares / (n - 1) / n);
  out.low = std::exp(mean - halfWidth);
  out.high = std::exp(mean + halfWidth);
  return out;
}

}  // namespace ringlab::measure
