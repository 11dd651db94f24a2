#include "ringlab/model/fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"

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
    const double s = std::sqrt(ssRes / dof), t = studentT975(dof);
    fit.slopeHalfWidth95 = t * s / std::sqrt(sxx);
    fit.interceptHalfWidth95 = t * s * std::sqrt(1 / total + meanX * meanX / sxx);
  }
  return fit;
}

}  // namespace

double studentT975(int dof) {
  // t(0.975, k) for k = 1..30, to 1e-9 (computed by integrating the density to 30 digits).
  static constexpr double kTable[] = {
      12.7062047362, 4.30265272975, 3.18244630528, 2.7764451052,  2.57058183564, 2.44691185114,
      2.36462425159, 2.3060041352,  2.2621571628,  2.22813885199, 2.20098516009, 2.17881282967,
      2.16036865646, 2.14478668792, 2.13144954556, 2.11990529922, 2.10981557783, 2.10092204024,
      2.09302405441, 2.08596344727, 2.07961384473, 2.0738730679,  2.06865761042, 2.06389856163,
      2.05953855275, 2.05552943864, 2.05183051648, 2.0484071418,  2.04522964213, 2.0422724563};
  if (dof < 1)
    throwInvalid("a t quantile needs at least 1 degree of freedom, got " + std::to_string(dof));
  if (dof <= 30) return kTable[dof - 1];
  // Cornish-Fisher expansion of t in powers of 1/k around the normal quantile z.
  const double z = 1.959963984540054, k = dof;
  return z + (z * z * z + z) / (4 * k) +
         (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * k * k) +
         (3 * std::pow(z, 7) + 19 * std::pow(z, 5) + 17 * z * z * z - 15 * z) / (384 * k * k * k);
}

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

MemoryRegime detectMemoryRegime(const std::vector<double>& bytes,
                                const std::vector<double>& seconds, double minBytes) {
  if (bytes.size() != seconds.size())
    throwInvalid("memory regime: as many sizes as times are needed");
  double fastest = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double perByte = seconds[i] / bytes[i];
    if (bytes[i] >= minBytes && (fastest == 0 || perByte < fastest)) fastest = perByte;
  }
  std::size_t first = bytes.size();
  while (first > 1 && bytes[first - 1] >= minBytes &&
         seconds[first - 1] / bytes[first - 1] > 2 * fastest)
    --first;
  if (first == bytes.size()) return {};
  std::vector<double> perByte;
  for (std::size_t j = first; j < bytes.size(); ++j) perByte.push_back(seconds[j] / bytes[j]);
  return {bytes[first - 1], median(perByte)};
}

double medianPerByteAbove(const std::vector<double>& bytes, const std::vector<double>& seconds,
                          double aboveBytes, double fallback) {
  std::vector<double> perByte;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] > aboveBytes) perByte.push_back(seconds[i] / bytes[i]);
  }
  return perByte.empty() ? fallback : median(perByte);
}

}  // namespace ringlab::model
