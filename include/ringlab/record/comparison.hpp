#pragma once
// Measured against predicted, row by row: the figures behind `ringlab compare` and
// `ringlab bench --model`, and a record's times as the curve `ringlab plan --measured` prices with.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/io/model_files.hpp"
#include "ringlab/model/measured_curve.hpp"
#include "ringlab/model/memory_regime.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/record/run_logs.hpp"
#include "ringlab/schedule/algorithms.hpp"

namespace ringlab::record {

// The model prices the two modes apart where the profile measured the out-of-place kernel
// (model::forOutOfPlace), and alike otherwise.
struct ComparedRow {
  std::uint64_t bytes = 0;
  double predictedUs = 0;  // out of place
  double outOfPlaceUs = 0;
  double predictedInPlaceUs = 0;
  std::optional<double> inPlaceUs;  // none where the source times one buffer pair (OSU)
  // The regime that priced each prediction, from its working set (model/memory_regime.hpp): the
  // out-of-place run's holds the output buffer too.
  model::Regime regime = model::Regime::Cache;
  model::Regime inPlaceRegime = model::Regime::Cache;
  double outOfPlaceRatio() const { return outOfPlaceUs / predictedUs; }
  std::optional<double> inPlaceRatio() const {
    return inPlaceUs ? std::optional<double>(*inPlaceUs / predictedInPlaceUs) : std::nullopt;
  }
};

struct Comparison {
  std::string label;   // "ring, p = 4", with the run's name in a file of several
  std::string source;  // what measured it
  // One line each: what the log lacks ("log: ...") and how the run's setup differs from the
  // model's ("setup: ...").
  std::vector<std::string> notes;
  std::vector<ComparedRow> rows;
};

// Where the model's parameters come from, as far as that can differ from a measured run.
struct ModelSetup {
  std::string transport;  // the profile's; empty when the parameters were given one by one
  std::string host;
  std::optional<int> ranks;  // the p a profile says it was measured for
  bool calibrated = false;   // a profile file: gamma measured on float32 sums (ringlab calibrate)
  io::ModelLabels labels;    // the front end's names for the model's inputs, in advice
};
ModelSetup modelSetup(const io::ResolvedModel& model, const io::ModelSource& source,
                      const io::ModelLabels& labels = {});

// How the run's setup differs from the model's, one sentence each: GPUs against CPU ranks,
// another transport, another p, another datatype than gamma's.
std::vector<std::string> setupDifferences(const LoggedRun& run, const ModelSetup& setup);

// Predicted microseconds for one AllReduce of `bytes` under the parameters (a profile's, or
// model::forOutOfPlace of them for an output buffer apart from the input).
double predictedMicros(const schedule::AlgorithmSpec& spec, int ranks, std::uint64_t bytes,
                       DataType type, const model::ModelParams& params);

// The algorithm a record is compared with: `requested` when given, else the one it recorded, else
// ring (an nccl-tests log names none).
schedule::AlgorithmSpec comparedAlgorithm(const RunRecord& record, const std::string& requested);

// Every row of the record against the model. Throws InvalidArgument naming `name` when the record
// has no datatype or a row lacks its out-of-place time.
Comparison compare(const RunRecord& record, const schedule::AlgorithmSpec& spec,
                   const model::Profile& profile, const std::string& name);

// The same for a logged run: its name in the label, its notes and setup differences in notes.
Comparison compare(const LoggedRun& run, const schedule::AlgorithmSpec& spec,
                   const model::Profile& profile, const ModelSetup& setup, const std::string& name);

// Median over rows of at least `fromBytes` of |measured/predicted - 1| (out-of-place and in-place
// rows both counted); NaN when no row qualifies.
double medianAbsoluteError(const Comparison& c, std::uint64_t fromBytes);

// The record's AllReduce times as a curve: in-place times (a gradient bucket is reduced in place),
// out-of-place where a row has none. Throws InvalidArgument "measured times <name>: ..." for a
// row with neither, or too few or disordered sizes.
model::MeasuredAllReduce measuredAllReduce(const RunRecord& record, const std::string& name);

}  // namespace ringlab::record
