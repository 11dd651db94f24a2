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

// Where data stops fitting in cache, from per-size times of one operation (x = bytes): the memory
// regime is the longest run of largest sizes whose per-byte time is more than twice the best
// per-byte time among sizes of at least `minBytes` (bandwidth bound). A run from the top, not the
// first slow size, so that an isolated slow size below the cache (a late wake-up) cannot move the
// boundary. cacheBytes is the size just below the run; secondsPerByte the run's median per-byte
// time. Both 0 when the largest size was not slow.
struct MemoryRegime {
  double cacheBytes = 0;
  double secondsPerByte = 0;
};
MemoryRegime detectMemoryRegime(const std::vector<double>& bytes,
                                const std::vector<double>& seconds, double minBytes = 64 * 1024);

// Median of seconds/bytes over the sizes larger than `aboveBytes`; `fallback` when there are none.
double medianPerByteAbove(const std::vector<double>& bytes, const std::vector<double>& seconds,
                          double aboveBytes, double fallback);

}  // namespace ringlab::model
