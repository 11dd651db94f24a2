#pragma once
// Ordinary least squares for calibration: y = intercept + slope * x, with the residuals, R^2 and
// each coefficient's 95% confidence interval reported beside the fit so that a poor or noisy fit
// is visible, never hidden.
#include <string>
#include <vector>

namespace ringlab::model {

struct LineFit {
  double intercept = 0;
  double slope = 0;
  double r2 = 0;                  // 1 - SS_res / SS_tot
  std::vector<double> residuals;  // y_i - (intercept + slope x_i), in input order
  // Half-widths of the 95% two-sided t-intervals (n - 2 degrees of freedom) of the intercept and
  // the slope, from the residuals: t * standard error. Infinite with two points (no degree of
  // freedom left to estimate the noise); 0 for points exactly on a line.
  double interceptHalfWidth95 = 0;
  double slopeHalfWidth95 = 0;
};

// When a fit cannot be trusted: a coefficient whose 95% half-width is more than
// kUnstableRelativeHalfWidth of its value (the data do not tell it within a factor of 3: it could
// be half or one and a half times as large), or an R^2 below kUnstableR2 (more than a tenth of the
// variation unexplained by the line). Both thresholds are stated here once and printed with the
// flags.
inline constexpr double kUnstableRelativeHalfWidth = 0.5;
inline constexpr double kUnstableR2 = 0.9;
// One line per reason, naming the coefficient ("alpha: 95% interval +-12.0 us is 85% of its
// value"); empty when the fit is stable. `interceptName`/`slopeName` are "" for a coefficient the
// caller does not use (gamma's intercept, a call overhead, is not a model parameter).
std::vector<std::string> unstableReasons(const LineFit& fit, const std::string& what,
                                         const std::string& interceptName,
                                         const std::string& slopeName);

// Throws InvalidArgument with fewer than two points or when all x are equal.
LineFit fitLine(const std::vector<double>& x, const std::vector<double>& y);

// Least squares on relative errors, minimising sum(((y_i - fit_i) / y_i)^2): every point counts
// alike whether it is 2 us or 20 ms, so the intercept (alpha) is not drowned by the largest sizes.
// R^2 is computed on the same weighted scale. All y must be > 0.
LineFit fitLineRelative(const std::vector<double>& x, const std::vector<double>& y);

// The median (mean of the middle two for an even count). Throws InvalidArgument when empty.
double median(std::vector<double> values);

// Where a host's data stop fitting in cache, from a memory pass's per-byte times against working
// set (the bytes that go through one cache; increasing). The fastest time is taken over the
// working sets larger than `privateBytes` (a core's own caches, which the data of the sizes a
// job's regime matters for outgrow; over all where fewer than two are larger), so that the knee is
// the last level's. A regime beyond the cache exists when the largest working set's per-byte time
// is more than kMemoryRegimeRatio times that fastest one (less is noise and the gentle slope of a
// cache hierarchy); it is the longest run of largest working sets whose time is above the
// geometric mean of those two, half-way between the plateaus on a log scale wherever they lie. A
// run from the top, so that an isolated slow point below the cache (a late wake-up) cannot move
// the knee. Returns the working set just below the run, the largest still in cache; 0 for one
// regime.
inline constexpr double kMemoryRegimeRatio = 1.5;
double memoryKnee(const std::vector<double>& workingSets, const std::vector<double>& secondsPerByte,
                  double privateBytes);

// The median of `values` over the entries whose x is in (lo, hi]; `fallback` when there are none.
double medianWithin(const std::vector<double>& x, const std::vector<double>& values, double lo,
                    double hi, double fallback);

}  // namespace ringlab::model
