#pragma once
// A GPU log (nccl-tests) against the GPU system it ran on: the verdict of gpu/verdict.hpp on the
// log's out-of-place times, with what the log says of itself (its GPU, its p) beside it. What
// `ringlab compare --system`, ringlab.compare_gpu and the lab's panel 3 show.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/gpu/nccl_model.hpp"
#include "ringlab/gpu/system.hpp"
#include "ringlab/gpu/verdict.hpp"
#include "ringlab/record/run_logs.hpp"

namespace ringlab::record {

struct GpuComparison {
  std::string label;   // "p = 16" with the run's name in a file of several
  std::string source;  // the file
  std::string device;  // what the log says ran it: "GPUs (NVIDIA H100 80GB HBM3)"
  int ranks = 0;
  gpu::GpuSystem system;  // as the log ran it (gpu::withRanks)
  gpu::Verdict verdict;
  // What the log lacks, how the system differs from what the log says, and what the model
  // assumed, one sentence each.
  std::vector<std::string> notes;
};

// Whether the run measured GPUs (an nccl-tests log, OSU's xccl), not CPU ranks.
bool isGpuRun(const LoggedRun& run);

// Throws InvalidArgument naming `name` when the run is not on GPUs, or its p does not fit the
// system.
GpuComparison compareGpu(const LoggedRun& run, const gpu::GpuSystem& system,
                         const std::string& name);

// For a GPU log given no system, the one sentence that replaces the table: what the log ran on,
// that its hardware cannot be judged without a description of it, and a preset to start from when
// the GPU is one of the known kinds. `howToGive` is the front end's way to give one.
std::string noSystemSentence(const LoggedRun& run, const std::string& howToGive);

// {"system", "nccl_figures", "p", "rows": [{size_bytes, measured_us (out of place), predicted_us,
// algorithm, protocol, channels, regime, measured_over_predicted, measured_busbw_GBps,
// predicted_busbw_GBps, bound_us}], "bands", "findings", "flagged", "notes"}.
nlohmann::json toJson(const GpuComparison& comparison);

}  // namespace ringlab::record
