#include "ringlab/model/student_t.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::model {

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

}  // namespace ringlab::model
