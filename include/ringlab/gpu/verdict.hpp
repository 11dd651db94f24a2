#pragma once
// A verdict on measured AllReduce times (an nccl-tests log) against what the system should
// deliver: per row the prediction, the regime and measured/predicted; per size band the median
// error; and a short diagnosis naming where the measurements fall short of (or beyond) the
// hardware and what usually causes that. Pure.
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/gpu/nccl_model.hpp"

namespace ringlab::gpu {

struct MeasuredTime {
  std::uint64_t bytes = 0;
  double timeUs = 0;  // out of place
};

struct VerdictRow {
  std::uint64_t bytes = 0;
  double measuredUs = 0;
  NcclPrediction predicted;
  double predictedUs() const { return predicted.chosen.time_s * 1e6; }
  double ratio() const { return measuredUs / predictedUs(); }  // measured / predicted time
  double measuredBusBw_Bps(int ranks) const;
};

// The sizes the verdict summarises apart: below 1 MiB (latency), 1-64 MiB, 64 MiB and more.
enum class Band { Small, Medium, Large };
const char* bandName(Band band);  // "< 1 MiB", "1-64 MiB", ">= 64 MiB"
Band bandOf(std::uint64_t bytes);

struct BandSummary {
  Band band = Band::Large;
  int rows = 0;
  double medianAbsError = 0;  // median |measured/predicted - 1|
  double medianRatio = 0;     // median measured/predicted
};

struct Verdict {
  std::vector<VerdictRow> rows;
  std::vector<BandSummary> bands;  // the bands with rows, small to large
  // Findings, one sentence each: where the log falls short of or beyond its hardware, and why
  // that usually happens. `flagged` when one of them says the log underperforms or the model is
  // off by more than the stated margins.
  std::vector<std::string> findings;
  bool flagged = false;
};

// Judges the rows on the model's system. Rows of 0 bytes are left out.
Verdict judge(const NcclModel& model, const std::vector<MeasuredTime>& rows);

}  // namespace ringlab::gpu
