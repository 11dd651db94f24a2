#include "ringlab/record/comparison.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/model/fit.hpp"
#include "ringlab/model/predict.hpp"

namespace ringlab::record {

double predictedMicros(const schedule::AlgorithmSpec& spec, int ranks, std::uint64_t bytes,
                       DataType type, const model::ModelParams& params) {
  return model::predictAllReduce(spec, ranks, bytes / dataTypeSize(type), type, params).total_s() *
         1e6;
}

schedule::AlgorithmSpec comparedAlgorithm(const RunRecord& record, const std::string& requested) {
  schedule::AlgorithmSpec spec;
  spec.name = !requested.empty()              ? requested
              : !record.run.algorithm.empty() ? record.run.algorithm
                                              : "ring";
  return spec;
}

// The rows' datatype, which the model prices the reduction of; a type ringlab does not run (a
// log's fp8 rows) has no reduction cost here.
DataType runnableType(const std::string& dtype, const std::string& name) {
  const LoggedType type = parseLoggedType(dtype);
  if (!type.runnable) {
    throwInvalid(
        fmt::format("{}: the rows reduce {}, which ringlab neither runs nor prices on CPU "
                    "ranks (it prices int8 to float64); compare the log against a GPU "
                    "system instead",
                    name, dtype));
  }
  return *type.runnable;
}

Comparison compare(const RunRecord& record, const schedule::AlgorithmSpec& spec,
                   const model::Profile& profile, const std::string& name) {
  requireOneCase(record, name);
  if (record.run.dtype.empty()) {
    throwInvalid(name + ": no run.dtype; the model needs the datatype to price each row");
  }
  const DataType type = runnableType(record.run.dtype, name);
  // The run's segments are its messages, which decide where receives are fused.
  const model::ModelParams params =
      model::forSegments(profile.params, static_cast<double>(record.segmentBytes));
  Comparison c;
  c.label = fmt::format("{}, p = {}", spec.name, record.run.ranks);
  c.source = record.source;
  for (std::size_t k = 0; k < record.rows.size(); ++k) {
    const RecordRow& r = record.rows[k];
    if (!r.outOfPlace) {
      throwInvalid(
          fmt::format("{}: row {} lacks its out_of_place time, which compare plots", name, k));
    }
    const int p = record.run.ranks;
    const std::uint64_t count = r.bytes / dataTypeSize(type);
    const model::Cost outOfPlace =
        model::predictAllReduce(spec, p, count, type, model::forOutOfPlace(params));
    const model::Cost inPlace = model::predictAllReduce(spec, p, count, type, params);
    c.rows.push_back({r.bytes, outOfPlace.total_s() * 1e6, r.outOfPlace->timeUs,
                      inPlace.total_s() * 1e6,
                      r.inPlace ? std::optional<double>(r.inPlace->timeUs) : std::nullopt,
                      outOfPlace.regime, inPlace.regime});
  }
  return c;
}

Comparison compare(const LoggedRun& run, const schedule::AlgorithmSpec& spec,
                   const model::Profile& profile, const ModelSetup& setup,
                   const std::string& name) {
  const std::string where = run.name.empty() ? name : name + " (" + run.name + ")";
  Comparison c = compare(run.record, spec, profile, where);
  if (!run.name.empty()) c.label += ", " + run.name;
  for (const std::string& note : run.notes) c.notes.push_back("log: " + note);
  for (const std::string& difference : setupDifferences(run, setup))
    c.notes.push_back("setup: " + difference);
  return c;
}

ModelSetup modelSetup(const io::ResolvedModel& model, const io::ModelSource& source,
                      const io::ModelLabels& labels) {
  ModelSetup setup;
  setup.labels = labels;
  if (!source.profilePath.empty()) {
    setup.transport = model.profile.transport;
    setup.host = model.profile.host;
    // The p it was measured at (calibrate's job_ranks, or a one-p profile's ranks), if recorded.
    if (model.profile.jobRanks > 0) setup.ranks = model.profile.jobRanks;
    setup.calibrated = true;
  } else if (!source.overridden()) {
    setup.transport = model.profile.transport;  // the stated defaults
  }
  return setup;
}

std::vector<std::string> setupDifferences(const LoggedRun& run, const ModelSetup& setup) {
  std::vector<std::string> out;
  const bool gpu = run.device.rfind("GPUs", 0) == 0;
  if (gpu && setup.calibrated) {
    out.push_back(
        fmt::format("the log ran on {}, the profile was measured over {} between CPU "
                    "ranks on {}: its parameters describe another machine",
                    run.device, setup.transport, setup.host));
  } else if (gpu && !setup.transport.empty()) {
    out.push_back(
        fmt::format("the log ran on {}, the model uses the stated defaults for "
                    "in-process CPU ranks: give {}, or {}, {} and {} for that machine",
                    run.device, setup.labels.profile, setup.labels.alpha, setup.labels.bandwidth,
                    setup.labels.gamma));
  } else if (setup.calibrated && !run.record.run.transport.empty() &&
             run.record.run.transport != setup.transport) {
    out.push_back(fmt::format("the run used the {} transport, the profile was measured over {}",
                              run.record.run.transport, setup.transport));
  }
  if (setup.ranks && *setup.ranks != run.record.run.ranks) {
    out.push_back(fmt::format("the profile was measured for p = {}, the log ran p = {}",
                              *setup.ranks, run.record.run.ranks));
  }
  if (setup.calibrated && run.record.run.dtype != "float32") {
    out.push_back(
        fmt::format("the profile's gamma was measured on float32 sums, the log "
                    "reduces {}",
                    run.record.run.dtype));
  }
  return out;
}

double medianAbsoluteError(const Comparison& c, std::uint64_t fromBytes) {
  std::vector<double> errors;
  for (const ComparedRow& r : c.rows) {
    if (r.bytes < fromBytes || r.predictedUs <= 0 || r.predictedInPlaceUs <= 0) continue;
    errors.push_back(std::fabs(r.outOfPlaceRatio() - 1));
    if (r.inPlaceRatio()) errors.push_back(std::fabs(*r.inPlaceRatio() - 1));
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

}  // namespace ringlab::record
