#pragma once
// Student's t quantile, for the intervals of calibrate's fits and of tune's paired ratios alike.

namespace ringlab::model {

// Student's t distribution's quantile t(probability, df) for probability in (0.5, 1): exact (to
// 1e-12 of t) from the closed form of its distribution function for integer df up to 200
// (Abramowitz and Stegun 26.7.3-4), a Cornish-Fisher expansion around the normal quantile beyond
// (error < 1e-4). A two-sided interval at confidence c takes probability (1 + c) / 2. Throws
// InvalidArgument for df < 1 or a probability outside (0.5, 1).
double studentTQuantile(double probability, int df);

}  // namespace ringlab::model
