#pragma once
// What the readers of pasted logs (nccl-tests text, OSU) share: lines freed of what a terminal,
// a launcher or a paste added, and p taken from the log or from -p, saying which.
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/record/run_logs.hpp"

namespace ringlab::record::logs {

// The text's lines without CR ends and without a launcher's prefix: `mpirun --tag-output`'s
// "[1,0]<stdout>:" (indented or not) and `srun -l`'s "0: ".
std::vector<std::string> cleanLines(const std::string& text);

// The line's whitespace-separated words.
std::vector<std::string> words(std::string_view line);

// The words joined by single spaces: a line as an error message quotes it.
std::string joinedWords(const std::vector<std::string>& words);

// An NCCL debug line ("host:pid:tid [0] NCCL INFO ...", "... NCCL WARN ...", "NCCL version ...").
bool isNcclDebugLine(const std::string& line);

// The N of "nranks N" in an NCCL INFO line; 0 when the line has none.
int nranksIn(const std::string& line);

// p: `stated` (> 0) as the log states it (`how`: "16 '#  Rank' lines"), checked against -p; else
// -p, with a note; else InvalidArgument "<name>: <missing>; give the number of ranks with -p N".
int resolveRanks(int stated, const std::string& how, const LogOptions& options,
                 const std::string& name, const std::string& missing,
                 std::vector<std::string>& notes);

// Names the runs of one file: "run 2 of 3" when it holds several runs, the case ("float32 max")
// when a run holds several; nothing when there is one of each. `runs[i]` are run i's cases.
std::vector<LoggedRun> namedRuns(std::vector<std::vector<LoggedRun>> runs);

}  // namespace ringlab::record::logs
