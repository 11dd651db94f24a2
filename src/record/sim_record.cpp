#include "ringlab/record/sim_record.hpp"

#include "ringlab/schedule/ring_shape.hpp"

namespace ringlab::record {

RunInfo simRunInfo(const schedule::AlgorithmSpec& spec, const std::string& topology,
                   const std::string& placement, int p, DataType type, ReduceOp op) {
  RunInfo info = currentRunInfo();
  info.transport = "simulated";
  info.algorithm = spec.name;
  const std::string orders = schedule::ringOrderText(spec, p);
  info.ringOrder = orders.size() <= 120 ? orders : orders.substr(0, 117) + "...";
  info.topology = topology + "; placement " + placement;
  info.ranks = p;
  info.dtype = dataTypeName(type);
  info.op = reduceOpName(op);
  return info;
}

nlohmann::json simRecordJson(const SimRun& run, const std::vector<sim::SimRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const sim::SimRow& r : rows) {
    out.push_back({{"size_bytes", r.bytes},
                   {"count", r.count},
                   {"time_us", r.time_s * 1e6},
                   {"algbw_GBps", r.algbw_GBps},
                   {"busbw_GBps", r.busbw_GBps},
                   {"simulated_steps", r.simulatedSteps}});
  }
  return {{"run", toJson(run.info)},
          {"placement", run.placement},
          {"conventions",
           {{"time", "simulated completion of the slowest rank, microseconds"},
            {"algbw", "size / time, GB/s = 1e9 B/s"},
            {"busbw", "algbw x 2(p-1)/p (nccl-tests allreduce)"}}},
          {"gamma_s_per_byte", run.gammaSPerByte},
          {"rows", out}};
}

}  // namespace ringlab::record
