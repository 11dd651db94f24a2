#include "ringlab/model/fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/model/student_t.hpp"

namespace ringlab::model {

namespace {

LineFit weightedFit(const std::vector<double>& x, const std::vector<double>& y,
                    const std::vector<double>& w) {
  if (x.size() != y.size() || x.size() < 2) {
    throwInvalid("a line fit needs at least two (x, y) points; got " + std::to_string(x.size()) +
                 " x and " + std::to_string(y.size()) + " y values");
  }
  double total = 0, meanX = 0, meanY = 0;
  for (double wi : w) total += wi;
  for (std::size_t i = 0; i < x.size(); ++i) {
    meanX += w[i] * x[i] / total;
    meanY += w[i] * y[i] / total;
  }
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += w[i] * (x[i] - meanX) * (x[i] - meanX);
    sxy += w[i] * (x[i] - meanX) * (y[i] - meanY);
    syy += w[i] * (y[i] - meanY) * (y[i] - meanY);
  }
  if (sxx == 0) throwInvalid("a line fit needs at least two distinct x values");
  LineFit fit;
  fit.slope = sxy / sxx;
  fit.intercept = meanY - fit.slope * meanX;
  double ssRes = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    fit.residuals.push_back(y[i] - (fit.intercept + fit.slope * x[i]));
    ssRes += w[i] * fit.residuals.back() * fit.residuals.back();
  }
  fit.r2 = syy > 0 ? 1 - ssRes / syy : 1;
  // The textbook intervals of weighted least squares with weights known up to one scale: the
  // noise variance per unit weight is estimated from the residuals with n - 2 degrees of freedom.
  const int dof = static_cast<int>(x.size()) - 2;
  if (dof < 1) {
    fit.interceptHalfWidth95 = fit.slopeHalfWidth95 = std::numeric_limits<double>::infinity();
  } else {
    const double s = std::sqrt(ssRes / dof), t = studentTQuantile(0.975, dof);
    fit.slopeHalfWidth95 = t * s / std::sqrt(sxx);
    fit.interceptHalfWidth95 = t * s * std::sqrt(1 / total + meanX * meanX / sxx);
  }
  return fit;
}

}  // namespace

std::vector<std::string> unstableReasons(const LineFit& fit, const std::string& what,
                                         const std::string& interceptName,
                                         const std::string& slopeName) {
  std::vector<std::string> reasons;
  const auto wide = [&](const std::string& name, double value, double halfWidth) {
    if (name.empty() || !(halfWidth > kUnstableRelativeHalfWidth * std::abs(value))) return;
    reasons.push_back(
        value == 0 || !std::isfinite(halfWidth)
            ? fmt::format("{}: its 95% interval is unbounded or the value is 0", name)
            : fmt::format("{}: its 95% interval is +-{:.0f}% of its value (limit {:.0f}%)", name,
                          100 * halfWidth / std::abs(value), 100 * kUnstableRelativeHalfWidth));
  };
  wide(interceptName, fit.intercept, fit.interceptHalfWidth95);
  wide(slopeName, fit.slope, fit.slopeHalfWidth95);
  if (fit.r2 < kUnstableR2)
    reasons.push_back(fmt::format("{} fit: R^2 = {:.3f} (limit {})", what, fit.r2, kUnstableR2));
  return reasons;
}

LineFit fitLine(const std::vector<double>& x, const std::vector<double>& y) {
  return weightedFit(x, y, std::vector<double>(x.size(), 1.0));
}

LineFit fitLineRelative(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> w;
  for (double v : y) {
    if (!(v > 0)) throwInvalid("a relative fit needs every y > 0");
    w.push_back(1 / (v * v));
  }
  return weightedFit(x, y, w);
}

double median(std::vector<double> v) {
  if (v.empty()) throwInvalid("the median of no values");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double memoryKnee(const std::vector<double>& workingSets, const std::vector<double>& secondsPerByte,
                  double privateBytes) {
  if (workingSets.size() != secondsPerByte.size())
    throwInvalid("memory knee: as many working sets as times are needed");
  if (workingSets.size() < 2) return 0;
  std::size_t from = 0;
  while (from < workingSets.size() && workingSets[from] <= privateBytes) ++from;
  if (workingSets.size() - from < 2) from = 0;
  const double fastest = *std::min_element(secondsPerByte.begin() + from, secondsPerByte.end());
  const double largest = secondsPerByte.back();
  if (!(largest > kMemoryRegimeRatio * fastest)) return 0;
  const double between = std::sqrt(fastest * largest);
  std::size_t first = secondsPerByte.size();
  while (first > 1 && secondsPerByte[first - 1] > between) --first;
  return workingSets[first - 1];
}

double medianWithin(const std::vector<double>& x, const std::vector<double>& values, double lo,
                    double hi, double fallback) {
  std::vector<double> within;
  for (std::size_t i = 0; i < x.size() && i < values.size(); ++i) {
    if (x[i] > lo && x[i] <= hi) within.push_back(values[i]);
  }
  return within.empty() ? fallback : median(within);
}

}  // namespace ringlab::model
