#pragma once
// A collective's measured time against its size, to price the sizes in between: what a user who
// has timed their own AllReduce (`ringlab bench --json`, or their framework's, written in the same
// shape) plans with instead of the alpha-beta-gamma closed forms.
#include <cstdint>
#include <string>
#include <vector>

namespace ringlab::model {

class MeasuredCurve {
 public:
  struct Point {
    std::uint64_t bytes = 0;
    double seconds = 0;
  };

  // Linear interpolation between measured sizes; below the smallest, its time; beyond the
  // largest, the line through the last two. The times are first made nondecreasing (each raised
  // to the largest time at any smaller size): a median that dips below a smaller size's is
  // measurement noise, and a cost that falls as a bucket grows would make a bigger bucket free.
  // Throws InvalidArgument naming `source` for fewer than two points, sizes not strictly
  // increasing, or a time that is not positive and finite.
  MeasuredCurve(std::vector<Point> points, std::string source);

  double seconds(std::uint64_t bytes) const;
  const std::vector<Point>& points() const { return points_; }  // after the raise
  const std::string& source() const { return source_; }

 private:
  std::vector<Point> points_;
  std::string source_;
};

// A measured AllReduce curve with what it was measured on (record::measuredAllReduce reads one
// from a run record).
struct MeasuredAllReduce {
  MeasuredCurve curve;
  int ranks = 0;
  std::string transport;
};

}  // namespace ringlab::model
