#include "ringlab/measure/comparison.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/model/fit.hpp"
#include "ringlab/model/predict.hpp"

namespace ringlab::measure {

double predictedMicros(const schedule::AlgorithmSpec& spec, int ranks, std::uint64_t bytes,
                       DataType type, const model::Profile& profile) {
  return model::predictAllReduce(spec, ranks, bytes / dataTypeSize(type), type, profile.params)
             .total_s() *
         1e6;
}

schedule::AlgorithmSpec comparedAlgorithm(const RunRecord& record, const std::string& requested) {
  schedule::AlgorithmSpec spec;
  spec.name = !requested.empty()              ? requested
              : !record.run.algorithm.empty() ? record.run.algorithm
                                              : "ring";
  return spec;
}

Comparison compare(const RunRecord& record, const schedule::AlgorithmSpec& spec,
                   const model::Profile& profile, const std::string& name) {
  requireOneCase(record, name);
  if (record.run.dtype.empty()) {
    throwInvalid(name + ": no run.dtype; the model needs the datatype to price each row");
  }
  const DataType type = parseDataType(record.run.dtype);
  Comparison c;
  c.label = fmt::format("{}, p = {}", spec.name, record.run.ranks);
  c.source = record.source;
  for (std::size_t k = 0; k < record.rows.size(); ++k) {
    const RecordRow& r = record.rows[k];
    if (!r.outOfPlace || !r.inPlace) {
      throwInvalid(
          fmt::format("{}: row {} lacks its out_of_place or in_place time; compare needs "
                      "both (a complete `ringlab bench --json` file)",
                      name, k));
    }
    c.rows.push_back({r.bytes, predictedMicros(spec, record.run.ranks, r.bytes, type, profile),
                      r.outOfPlace->timeUs, r.inPlace->timeUs});
  }
  return c;
}

double medianAbsoluteError(const Comparison& c, std::uint64_t fromBytes) {
  std::vector<double> errors;
  for (const ComparedRow& r : c.rows) {
    if (r.bytes < fromBytes || r.predictedUs <= 0) continue;
    errors.push_back(std::fabs(r.outOfPlaceRatio() - 1));
    errors.push_back(std::fabs(r.inPlaceRatio() - 1));
  }
  return errors.empty() ? std::numeric_limits<double>::quiet_NaN() : model::median(errors);
}

model::MeasuredAllReduce measuredAllReduce(const RunRecord& record, const std::string& name) {
  requireOneCase(record, "measured times " + name);
  std::vector<model::MeasuredCurve::Point> points;
  for (std::size_t k = 0; k < record.rows.size(); ++k) {
    const RecordRow& row = record.rows[k];
    const std::optional<Timing>& t = row.inPlace ? row.inPlace : row.outOfPlace;
    if (!t) {
      throwInvalid("measured times " + name + ": row " + std::to_string(k) +
                   ": no in_place.time_us or out_of_place.time_us");
    }
    points.push_back({row.bytes, t->timeUs * 1e-6});
  }
  return {model::MeasuredCurve(std::move(points), name), record.run.ranks,
          record.run.transport.empty() ? std::string("unnamed transport") : record.run.transport};
}

}  // namespace ringlab::measure
