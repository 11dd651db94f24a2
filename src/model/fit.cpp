#include "ringlab/model/fit.hpp"

#include <string>

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
  return fit;
}

}  // namespace

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

}  // namespace ringlab::model
