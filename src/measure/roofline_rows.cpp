#include "ringlab/measure/roofline_rows.hpp"

#include <algorithm>
#include <map>

#include "ringlab/job/transports.hpp"
#include "ringlab/measure/calibrate.hpp"
#include "ringlab/measure/machine_rates.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/model/registry.hpp"

namespace ringlab::measure {

namespace {

// The schedule that ran a row, and the pass its rates are priced at: calibrate's probe of a core's
// share of the job's data (workingSetPass). Between its passes over a block, a core's ranks'
// inputs and outputs go through its caches too (pricing the block alone took a 16 MiB row's blocks
// at in-cache rates that its data, 64 MiB on two cores, cannot have: docs/roofline.md). The share
// is the least a core's caches hold: where cores share a cache, it holds more, and the roofline is
// looser but still a bound.
struct RowPlan {
  schedule::AlgorithmSpec spec;
  schedule::Schedule schedule;
  record::PassSize pass;
};

// A profile's probe as the rates measureSizeRates gives.
SizeRates sizeRates(const model::WorkingSetRate& w) {
  return {workingSetPass(w.bytes),         1 / w.copySecondsPerByte,
          1 / w.reduceSecondsPerByte,      1 / w.slotCopyInSecondsPerByte,
          1 / w.slotCopyOutSecondsPerByte, 1 / w.slotReduceSecondsPerByte};
}

RowPlan planRow(const record::RecordRow& row, const BenchConfig& config, int cores) {
  // The spec that ran the row: the requested one, named as the Communicator reported it ("auto"
  // takes no other field, so its choice is the name alone).
  schedule::AlgorithmSpec spec = config.collective.algorithm;
  spec.name = row.algorithm;
  // The row is out of place: each rank has an input and an output of the row's size.
  const auto ranks = static_cast<std::uint64_t>(config.ranks);
  return {
      spec, model::buildSchedule(schedule::Collective::AllReduce, config.ranks, spec),
      workingSetPass(2 * ranks * row.bytes / std::min<std::uint64_t>(ranks, std::max(cores, 1)))};
}

}  // namespace

record::RooflineReport priceRows(const record::RunRecord& record, const BenchConfig& config,
                                 const std::string& transport,
                                 const transport::Transport* ranksTransport, int cores) {
  record::RooflineReport report;
  report.transport = transport;
  report.traffic = job::transportTraffic(transport);
  // Messages are the executor's segments; which of them skip the slots is the transport's say.
  report.traffic.segmentBytes = config.collective.exec.segmentBytes;
  if (ranksTransport) report.traffic.singleCopyBytes = ranksTransport->singleCopyBytes();
  report.cores = cores;
  if (report.traffic.network) {
    // The ring of the job's ranks: at p = 2 it is the pair, measured both ways already.
    const LoopbackRates loopback = measureLoopbackRates(config.ranks);
    report.loopbackBytesPerSecond = loopback.oneWayBytesPerSecond;
    report.loopbackTwoWayBytesPerSecond = loopback.twoWayBytesPerSecond;
    report.loopbackRingBytesPerSecond = loopback.ringBytesPerSecond;
    report.loopbackRingConnections = loopback.ringConnections;
  }
  // The profile's probes where it has them; a datatype whose reduce they did not probe (they sum
  // float32) is measured here, as is everything without them, on the same probe.
  const std::vector<model::WorkingSetRate> probed =
      config.profile ? config.profile->workingSetRates : std::vector<model::WorkingSetRate>{};
  const auto fromProfile = [&](DataType type) {
    return !probed.empty() && type == record::kCalibrateReduceType;
  };
  std::vector<RowPlan> plans;
  std::map<std::string, std::vector<record::PassSize>> passes;  // per datatype
  for (const record::RecordRow& row : record.rows) {
    plans.push_back(planRow(row, config, cores));
    if (!fromProfile(parseDataType(row.dtype))) passes[row.dtype].push_back(plans.back().pass);
  }
  std::map<std::string, std::map<record::PassSize, SizeRates>> rates;  // measured once each
  for (const auto& [dtype, sizes] : passes) {
    for (const SizeRates& r : measureSizeRates(sizes, parseDataType(dtype), job::probedSlotRing()))
      rates[dtype][r.pass] = r;
  }
  for (std::size_t i = 0; i < record.rows.size(); ++i) {
    const record::RecordRow& row = record.rows[i];
    if (!row.outOfPlace) continue;
    const DataType type = parseDataType(row.dtype);
    record::RooflineRow out;
    out.bytes = row.bytes;
    out.pass = plans[i].pass;
    out.dtype = row.dtype;
    out.op = row.op;
    out.algorithm = row.algorithm;
    out.timeUs = row.outOfPlace->timeUs;
    out.ratesFromProfile = fromProfile(type);
    report.copyFromProfile = report.copyFromProfile || out.ratesFromProfile;
    const SizeRates rowRates = out.ratesFromProfile
                                   ? sizeRates(model::rateForWorkingSet(
                                         probed, static_cast<double>(out.pass.workingSetBytes)))
                                   : rates.at(row.dtype).at(out.pass);
    out.probedWorkingSetBytes = rowRates.pass.workingSetBytes;
    out.rates = {.copyBytesPerSecond = rowRates.copyBytesPerSecond,
                 .reduceBytesPerSecond = rowRates.reduceBytesPerSecond,
                 .slotCopyInBytesPerSecond = rowRates.slotCopyInBytesPerSecond,
                 .slotCopyOutBytesPerSecond = rowRates.slotCopyOutBytesPerSecond,
                 .slotReduceBytesPerSecond = rowRates.slotReduceBytesPerSecond,
                 .loopbackBytesPerSecond = report.loopbackBytesPerSecond,
                 .loopbackTwoWayBytesPerSecond = report.loopbackTwoWayBytesPerSecond,
                 .loopbackRingBytesPerSecond = report.loopbackRingBytesPerSecond,
                 .loopbackRingConnections = report.loopbackRingConnections,
                 .cores = cores};
    // The profile's gamma is a float32 sum's (calibrate's kCalibrateReduceType), in place, in the
    // regime the model prices this out-of-place row in: the model and the roofline read the
    // machine the same way.
    if (config.profile && type == DataType::Float32) {
      const model::ModelParams& params = config.profile->params;
      const model::Regime regime = model::predictAllReduce(plans[i].spec, config.ranks, row.count,
                                                           type, model::forOutOfPlace(params))
                                       .regime;
      const double gamma = model::inRegime(params, regime).reduce.gamma_s_per_byte;
      if (gamma > 0) {
        out.rates.reduceBytesPerSecond = 1 / gamma;
        report.reduceFromProfile = true;
      }
    }
    out.roof = model::roofline(plans[i].schedule, row.count, type, report.traffic, out.rates);
    out.ofRoofline = out.timeUs > 0 ? out.roof.seconds * 1e6 / out.timeUs : 0;
    report.rows.push_back(out);
  }
  return report;
}

}  // namespace ringlab::measure
