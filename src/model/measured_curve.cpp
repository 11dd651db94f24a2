#include "ringlab/model/measured_curve.hpp"

#include <algorithm>
#include <cmath>

#include "ringlab/core/error.hpp"

namespace ringlab::model {

MeasuredCurve::MeasuredCurve(std::vector<Point> points, std::string source)
    : points_(std::move(points)), source_(std::move(source)) {
  if (points_.size() < 2) {
    throwInvalid("measured times " + source_ + ": " + std::to_string(points_.size()) +
                 " sizes; at least 2 are needed to interpolate");
  }
  double highest = 0;
  for (std::size_t k = 0; k < points_.size(); ++k) {
    Point& pt = points_[k];
    if (!(pt.seconds > 0) || !std::isfinite(pt.seconds)) {
      throwInvalid("measured times " + source_ + ": the time at " + std::to_string(pt.bytes) +
                   " bytes is not a positive number");
    }
    if (k > 0 && pt.bytes <= points_[k - 1].bytes) {
      throwInvalid("measured times " + source_ + ": size " + std::to_string(pt.bytes) +
                   " bytes does not follow " + std::to_string(points_[k - 1].bytes) +
                   "; sizes must be strictly increasing");
    }
    highest = std::max(highest, pt.seconds);
    pt.seconds = highest;
  }
}

double MeasuredCurve::seconds(std::uint64_t bytes) const {
  if (bytes <= points_.front().bytes) return points_.front().seconds;
  // The segment [a, b] that holds `bytes`, or the last one to extrapolate.
  auto b = std::lower_bound(points_.begin(), points_.end(), bytes,
                            [](const Point& p, std::uint64_t x) { return p.bytes < x; });
  if (b == points_.end()) --b;
  const auto a = b - 1;
  const double slope = (b->seconds - a->seconds) / static_cast<double>(b->bytes - a->bytes);
  return a->seconds + slope * (static_cast<double>(bytes) - static_cast<double>(a->bytes));
}

}  // namespace ringlab::model
