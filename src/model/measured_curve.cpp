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

MeasuredAllReduce measuredAllReduceFromBenchJson(const nlohmann::json& j,
                                                 const std::string& source) {
  const auto fail = [&](const std::string& what) {
    throwInvalid("measured times " + source + ": " + what +
                 " (expected `ringlab bench --json` output: run.p and rows of size_bytes with "
                 "in_place.time_us)");
  };
  if (!j.is_object() || !j.contains("run") || !j["run"].is_object()) fail("no \"run\" object");
  const nlohmann::json& run = j["run"];
  if (!run.contains("p") || !run["p"].is_number_integer() || run["p"].get<int>() < 1) {
    fail("run.p is missing or not a rank count >= 1");
  }
  if (!j.contains("rows") || !j["rows"].is_array()) fail("no \"rows\" array");
  std::vector<MeasuredCurve::Point> points;
  for (std::size_t k = 0; k < j["rows"].size(); ++k) {
    const nlohmann::json& row = j["rows"][k];
    const std::string at = "row " + std::to_string(k);
    if (!row.is_object() || !row.contains("size_bytes") ||
        !row["size_bytes"].is_number_unsigned()) {
      fail(at + ": no size_bytes");
    }
    const char* kind =
        row.contains("in_place") && row["in_place"].is_object() ? "in_place" : "out_of_place";
    if (!row.contains(kind) || !row[kind].is_object() || !row[kind].contains("time_us") ||
        !row[kind]["time_us"].is_number()) {
      fail(at + ": no in_place.time_us or out_of_place.time_us");
    }
    points.push_back(
        {row["size_bytes"].get<std::uint64_t>(), row[kind]["time_us"].get<double>() * 1e-6});
  }
  std::string transport = run.contains("transport") && run["transport"].is_string()
                              ? run["transport"].get<std::string>()
                              : std::string("unnamed transport");
  return {MeasuredCurve(std::move(points), source), run["p"].get<int>(), std::move(transport)};
}

}  // namespace ringlab::model
