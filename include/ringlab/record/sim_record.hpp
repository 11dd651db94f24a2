#pragma once
// A simulated AllReduce run (`ringlab sim`) as a record: the run identity every record carries,
// what the header names beside it, and the JSON document `ringlab sim --json` writes.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce_op.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/sim/allreduce_sim.hpp"

namespace ringlab::record {

struct SimRun {
  RunInfo info;                 // transport "simulated"
  std::string topology;         // the topology's name and shape
  std::string placement;        // which rank sits where
  std::string searchMethod;     // how --search found the rings; empty: the rings as given
  double gammaSPerByte = 0;     // reduction cost on the receiving rank; 0: free
  std::string reduceBandwidth;  // the throughput gamma came from, as the user wrote it
};

// The run's identity for `spec` at p ranks on `topology` with `placement`. Ring orders longer than
// 120 characters are cut to 117 and "..." (a header line, not a list to apply).
RunInfo simRunInfo(const schedule::AlgorithmSpec& spec, const std::string& topology,
                   const std::string& placement, int p, DataType type, ReduceOp op);

// {"run", "placement", "conventions", "gamma_s_per_byte", "rows"}; each row with size_bytes,
// count, time_us, algbw_GBps, busbw_GBps and simulated_steps.
nlohmann::json simRecordJson(const SimRun& run, const std::vector<sim::SimRow>& rows);

}  // namespace ringlab::record
