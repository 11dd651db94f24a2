#pragma once
// Ordinary least squares for calibration: y = intercept + slope * x, with the residuals and R^2
// reported beside the fit so that a poor fit is visible, never hidden.
#include <vector>

namespace ringlab::model {

struct LineFit {
  double intercept = 0;
  double slope = 0;
  double r2 = 0;                   // 1 - SS_res / SS_tot
  std::vector<double> residuals;   // y_i - (intercept + slope x_i), in input order
};

// Throws InvalidArgument with fewer than two points or when all x are equal.
LineFit fitLine(const std::vector<double>& x, const std::vector<double>& y);

// Least squares on relative errors, minimising sum(((y_i - fit_i) / y_i)^2): every point counts
// alike whether it is 2 us or 20 ms, so the intercept (alpha) is not drowned by the largest sizes.
// R^2 is computed on the same weighted scale. All y must be > 0.
LineFit fitLineRelative(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace ringlab::model
