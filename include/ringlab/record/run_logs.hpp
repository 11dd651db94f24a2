#pragma once
// Measurement logs as people paste them: `ringlab bench --json` records, nccl-tests output (text
// of any version from the 2.x layout on, and its -J JSON), and OSU osu_allreduce output. A file
// may hold several runs and, within a run, several (datatype, op) cases: each becomes a LoggedRun
// of its own, named, with what the log lacks said in its notes instead of refused.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/record/record.hpp"

namespace ringlab::record {

// What the user can add that a log may not say.
struct LogOptions {
  std::optional<int> ranks;  // -p: the number of ranks, for a log without its rank lines
  // How the front end names `ranks` in messages and notes: the CLI's -p, Python's ranks.
  std::string ranksName = "-p";
};

// One run of one (datatype, op) case.
struct LoggedRun {
  RunRecord record;
  // Empty when the file holds one run of one case; else "run 2 of 3", "float32 max", or both.
  std::string name;
  // What the log lacks and where a figure came from instead, one sentence each ("no '# Avg bus
  // bandwidth' line: ...", "p = 2 from -p: ...").
  std::vector<std::string> notes;
  // What ran it, as the log says: "GPUs (NVIDIA H100 80GB HBM3)", "GPUs (OSU MPI-CUDA)",
  // "CPU ranks (OSU MPI)", "CPU ranks (ringlab tcp)".
  std::string device;
  // Distinct hosts the log's rank lines name ("on HOST"); 0 where it lists none.
  int hosts = 0;
  // NCCL_ALGO and NCCL_PROTO as the log shows them set for the run (its command line, NCCL INFO),
  // in the GPU system spec's syntax ('+' for NCCL's ','); empty where it shows none.
  std::string ncclAlgo, ncclProto;
};

// nccl-tests' text output. Lines may carry a launcher's prefix (`mpirun --tag-output`'s
// "[1,0]<stdout>:", `srun -l`'s "0: "), CRLF ends, markdown indentation, and NCCL INFO/WARN or
// other lines anywhere. Throws InvalidArgument "<name>: ..." for another collective, rows of two
// processes interleaved, a log with no complete row, or p unknown (no rank lines, no -p).
std::vector<LoggedRun> runsFromNcclTests(const std::string& text, const std::string& name,
                                         const LogOptions& options);

// nccl-tests' -J JSON (the writer in its src/util.cu, JSON_FILE_VERSION 1 to 3).
std::vector<LoggedRun> runsFromNcclTestsJson(const nlohmann::json& json, const std::string& name,
                                             const LogOptions& options);

// OSU micro-benchmarks' osu_allreduce (and osu_xccl_allreduce) output, "# Size Avg Latency(us)"
// with or without -f's Min, Max and Iterations columns. OSU never prints p: -p is required.
std::vector<LoggedRun> runsFromOsu(const std::string& text, const std::string& name,
                                   const LogOptions& options);

// Any of the formats above or a `ringlab bench --json` record, detected from the content; a
// record of several cases (-d all, -o all) is split into one run per case.
std::vector<LoggedRun> parseRuns(const std::string& text, const std::string& name,
                                 const LogOptions& options);

// The one run a file holds, as parseRecord reads it (record.hpp), with what a log says of itself
// beside the record (what ran it, its notes); a `ringlab bench --json` record has only the record.
LoggedRun parseOneRun(const std::string& text, const std::string& name);

// The same from a file (bounded read); messages start "<what> <path>:".
std::vector<LoggedRun> readRuns(const std::string& path, const std::string& what,
                                const LogOptions& options);

// A record's rows split by (datatype, op), in order of first appearance.
std::vector<RunRecord> splitCases(const RunRecord& record);

}  // namespace ringlab::record
