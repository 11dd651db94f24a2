#include "ringlab/record/roofline_report.hpp"

namespace ringlab::record {

std::string loopbackRateUsed(const RooflineRow& row) {
  switch (row.roof.loopbackLimit) {
    case model::LoopbackLimit::AllRanksRing:
      return "ring of " + std::to_string(row.rates.loopbackRingConnections);
    case model::LoopbackLimit::AllRanksTwoWay:
      return "all ranks, two-way";
    case model::LoopbackLimit::AllRanksOneWay:
      return "all ranks, one-way";
    case model::LoopbackLimit::BusiestRank:
      break;
  }
  const model::Roofline& roof = row.roof;
  if (roof.wireBytes == 0) return "none";
  if (roof.twoWayWireBytes == roof.wireBytes) return "two-way";
  return roof.twoWayWireBytes == 0 ? "one-way" : "two-way and one-way";
}

nlohmann::json toJson(const RooflineReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const RooflineRow& r : report.rows) {
    nlohmann::json& row = rows.emplace_back(
        nlohmann::json{{"size_bytes", r.bytes},
                       {"pass_bytes", r.pass.bytes},
                       {"core_working_set_bytes", r.pass.workingSetBytes},
                       {"rates_from", r.ratesFromProfile ? "profile" : "measured"},
                       {"probed_working_set_bytes", r.probedWorkingSetBytes},
                       {"dtype", r.dtype},
                       {"op", r.op},
                       {"algorithm", r.algorithm},
                       {"time_us", r.timeUs},
                       {"roofline_us", r.roof.seconds * 1e6},
                       {"cores_shared", r.roof.coresShared},
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
    if (report.traffic.network) {
      row["two_way_wire_bytes"] = r.roof.twoWayWireBytes;
      row["all_ranks_wire_bytes"] = r.roof.allRanksWireBytes;
      row["loopback_rate"] = loopbackRateUsed(r);
    }
  }
  nlohmann::json out = {{"transport", report.transport},
                        {"copies", report.traffic.copies},
                        {"segment_bytes", report.traffic.segmentBytes},
                        {"network", report.traffic.network},
                        {"cores", report.cores},
                        {"reduce_rate_from", report.reduceFromProfile ? "profile" : "measured"},
                        {"rows", rows}};
  if (report.traffic.network) {
    out["loopback_GBps"] = report.loopbackBytesPerSecond / 1e9;
    out["loopback_two_way_GBps"] = report.loopbackTwoWayBytesPerSecond / 1e9;
    // null below three ranks: a ring of two is the pair.
    const bool ring = report.loopbackRingConnections > 0;
    out["loopback_ring_connections"] =
        ring ? nlohmann::json(report.loopbackRingConnections) : nlohmann::json();
    out["loopback_ring_GBps"] =
        ring ? nlohmann::json(report.loopbackRingBytesPerSecond / 1e9) : nlohmann::json();
  }
  // null: no message skips the slots.
  out["single_copy_bytes"] = report.traffic.singleCopyBytes == model::kNeverSingleCopy
                                 ? nlohmann::json()
                                 : nlohmann::json(report.traffic.singleCopyBytes);
  return out;
}

}  // namespace ringlab::record
