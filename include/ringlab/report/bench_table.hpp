#pragma once
// The nccl-tests style table of an AllReduce size sweep (all_reduce_perf's columns and their
// meaning), for every front end that prints one: measured rows (`ringlab bench`) and simulated or
// predicted rows (a row whose timings carry no wrong count prints "N/A" in #wrong).
#include <string>
#include <vector>

#include "ringlab/record/bench_settings.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/record/statistics.hpp"

namespace ringlab::report {

// Whose time an iteration's time is (-a): "slowest rank's time (-a 3)", ...
std::string iterationTimeText(record::OverRanks over);

// The lines before the table: what ran and where, how it was timed (the statistics shown and
// how iterations were reduced over ranks), what the columns mean, and for `--algo auto` and a
// profile what chose and what predicts. `tunedName` and `profileName` name the files the
// decision table and the profile came from (empty: none).
std::string benchPreamble(const record::BenchSettings& settings, const record::RunInfo& info,
                          const std::vector<record::Statistic>& stats, const std::string& tunedName,
                          const std::string& profileName);

// Columns beyond the twelve of nccl-tests.
struct BenchColumns {
  bool peer = false;       // mpi(us) mpi_busbw #wrong: another library on the same buffers
  bool model = false;      // model(us) oop/model ip/model: the row's predicted time
  bool algorithm = false;  // the algorithm that ran the row (--algo auto)
  // The statistics over iterations shown (--stats): the first fills time (and so algbw, busbw),
  // the others follow #wrong on each side, as nccl-tests' -I puts its i_min, i_max there.
  std::vector<record::Statistic> stats = {record::Statistic::Median};
};

// The three header lines ("# out-of-place in-place", column names, units), each ending in a
// newline and without trailing blanks.
std::string benchTableHeader(const BenchColumns& columns);

// One row, ending in a newline: size, count, type, redop, then time, algbw, busbw, #wrong and
// the further statistics out of place and in place (busbw for p ranks), then the peer, model and
// algorithm columns in that order. The row must have both timings, a predicted time for `model`
// and a peer timing for `peer`.
std::string benchTableRow(const record::RecordRow& row, int ranks, const std::string& dtype,
                          const std::string& op, const BenchColumns& columns);

// Comment lines after the sweep: per row, out of place, the CPU time per call beside the wall
// time per call (the loop mean), the slowest rank's and all ranks' together, and the cores the
// ranks kept busy (all ranks' CPU time over the wall time) against the host's `cores`.
std::string cpuTimeTable(const record::RunRecord& record, int cores);

// "# p = 8 ranks on 2 cores: oversubscribed, times include waiting for a core", when the ranks
// on this host (`ranksOnHost` of the job's `ranks`; 0: unknown) outnumber its `cores`; else "".
std::string oversubscription(int ranksOnHost, int ranks, int cores);

}  // namespace ringlab::report
