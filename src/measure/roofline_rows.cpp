#include "ringlab/measure/roofline_rows.hpp"

#include <map>

#include "ringlab/measure/machine_rates.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/model/registry.hpp"

namespace ringlab::measure {

namespace {

// Rates per datatype and size, measured once each.
std::map<std::string, std::map<std::uint64_t, SizeRates>> measureRates(const RunRecord& record) {
  std::map<std::string, std::vector<std::uint64_t>> sizes;
  for (const RecordRow& row : record.rows) sizes[row.dtype].push_back(row.bytes);
  std::map<std::string, std::map<std::uint64_t, SizeRates>> rates;
  for (const auto& [dtype, list] : sizes) {
    for (const SizeRates& r : measureSizeRates(list, parseDataType(dtype)))
      rates[dtype][r.bytes] = r;
  }
  return rates;
}

}  // namespace

RooflineReport priceRows(const RunRecord& record, const BenchConfig& config,
                         const std::string& transport, const transport::Transport* ranksTransport,
                         int cores) {
  RooflineReport report;
  report.transport = transport;
  report.traffic = model::transportTraffic(transport);
  // Messages are the executor's segments; which of them skip the slots is the transport's say.
  report.traffic.segmentBytes = config.collective.exec.segmentBytes;
  if (ranksTransport) report.traffic.singleCopyBytes = ranksTransport->singleCopyBytes();
  report.cores = cores;
  if (report.traffic.network) report.loopbackBytesPerSecond = measureLoopbackRate();
  const auto rates = measureRates(record);
  for (const RecordRow& row : record.rows) {
    if (!row.outOfPlace) continue;
    const DataType type = parseDataType(row.dtype);
    RooflineRow out;
    out.bytes = row.bytes;
    out.dtype = row.dtype;
    out.op = row.op;
    out.algorithm = row.algorithm;
    out.timeUs = row.outOfPlace->timeUs;
    const SizeRates& measured = rates.at(row.dtype).at(row.bytes);
    out.rates = {.copyBytesPerSecond = measured.copyBytesPerSecond,
                 .reduceBytesPerSecond = measured.reduceBytesPerSecond,
                 .slotCopyInBytesPerSecond = measured.slotCopyInBytesPerSecond,
                 .slotCopyOutBytesPerSecond = measured.slotCopyOutBytesPerSecond,
                 .slotReduceBytesPerSecond = measured.slotReduceBytesPerSecond,
                 .loopbackBytesPerSecond = report.loopbackBytesPerSecond,
                 .cores = cores};
    // The profile's gamma is a float32 sum's (calibrate's kCalibrateReduceType).
    if (config.profile && type == DataType::Float32) {
      const double gamma = model::forMessage(config.profile->params, static_cast<double>(row.bytes))
                               .reduce.gamma_s_per_byte;
      if (gamma > 0) {
        out.rates.reduceBytesPerSecond = 1 / gamma;
        report.reduceFromProfile = true;
      }
    }
    const schedule::AlgorithmSpec spec = model::chooseAlgorithm(
        config.collective.algorithm, schedule::Collective::AllReduce, config.ranks, row.count, type,
        config.collective.autoModel, config.collective.autoTable.get());
    const schedule::Schedule schedule =
        model::buildSchedule(schedule::Collective::AllReduce, config.ranks, spec);
    out.roof = model::roofline(schedule, row.count, type, report.traffic, out.rates);
    out.ofRoofline = out.timeUs > 0 ? out.roof.seconds * 1e6 / out.timeUs : 0;
    report.rows.push_back(out);
  }
  return report;
}

nlohmann::json toJson(const RooflineReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const RooflineRow& r : report.rows) {
    rows.push_back({{"size_bytes", r.bytes},
                    {"dtype", r.dtype},
                    {"op", r.op},
                    {"algorithm", r.algorithm},
                    {"time_us", r.timeUs},
                    {"roofline_us", r.roof.seconds * 1e6},
                    {"of_roofline", r.ofRoofline},
                    {"copy_GBps", r.rates.copyBytesPerSecond / 1e9},
                    {"reduce_GBps", r.rates.reduceBytesPerSecond / 1e9},
                    {"slot_copy_in_GBps", r.rates.slotCopyInBytesPerSecond / 1e9},
                    {"slot_copy_out_GBps", r.rates.slotCopyOutBytesPerSecond / 1e9},
                    {"slot_reduce_GBps", r.rates.slotReduceBytesPerSecond / 1e9},
                    {"copy_bytes", r.roof.copyBytes},
                    {"slot_bytes", r.roof.slotBytes},
                    {"reduce_bytes", r.roof.reduceBytes},
                    {"wire_bytes", r.roof.wireBytes}});
  }
  nlohmann::json out = {{"transport", report.transport},
                        {"copies", report.traffic.copies},
                        {"segment_bytes", report.traffic.segmentBytes},
                        {"network", report.traffic.network},
                        {"cores", report.cores},
                        {"reduce_rate_from", report.reduceFromProfile ? "profile" : "measured"},
                        {"rows", rows}};
  if (report.traffic.network) out["loopback_GBps"] = report.loopbackBytesPerSecond / 1e9;
  // null: no message skips the slots.
  out["single_copy_bytes"] = report.traffic.singleCopyBytes == model::kNeverSingleCopy
                                 ? nlohmann::json()
                                 : nlohmann::json(report.traffic.singleCopyBytes);
  return out;
}

}  // namespace ringlab::measure
