#pragma once
// A measured decision table (decision_table.hpp) as the settings an MPI library reads, in the
// format of the release that will read them:
//   - Open MPI coll/tuned dynamic rules (coll_tuned_use_dynamic_rules,
//     coll_tuned_dynamic_rules_filename): the classic four-column file before 4.1.8 and 5.0.7,
//     "rule-file-version-2" with five columns from those on (coll_tuned_dynamic_file.c);
//   - MPICH's collective selection file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, MPICH 4.0 and
//     later): MPICH's own default tree for that release with its allreduce part replaced for the
//     tuned communicator size, since the file replaces the whole tree.
// Algorithms are checked against the list of the target release: an algorithm it lacks is refused
// with the list it has.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/model/decision_table.hpp"

namespace ringlab::model {

struct LibraryVersion {
  int major = 0, minor = 0, release = 0;
  std::string text;  // as given ("4.1.4", "5.0.8rc1")
};
// "4.1.4", "v5.0.7", "4.0" (release 0), a suffix after the last number ("rc1") ignored. Throws
// InvalidArgument naming `what` and the text otherwise.
LibraryVersion parseLibraryVersion(std::string_view text, std::string_view what);
bool atLeast(const LibraryVersion& v, int major, int minor, int release);

// The version in `ompi_info --parsable` output (the line "ompi:version:full:4.1.4").
std::optional<LibraryVersion> openMpiVersionFromOmpiInfo(std::string_view text);
// The version in `mpichversion` output (the line "MPICH Version:    4.0.2").
std::optional<LibraryVersion> mpichVersionFromMpichversion(std::string_view text);

// Whether this Open MPI reads "rule-file-version-2" (a fifth column, max requests): 4.1.8 and
// later 4.1 releases, 5.0.7 and later (coll_tuned_dynamic_file.c at those tags).
bool openMpiReadsRuleFileVersion2(const LibraryVersion& version);
// The allreduce algorithms of this Open MPI by id (index 0 is "ignore": its fixed decision),
// from coll_tuned_allreduce_decision.c. Throws InvalidArgument for releases before 2.0.
std::vector<std::string> openMpiAllreduceAlgorithms(const LibraryVersion& version);
// The rules file for this Open MPI: one collective (allreduce, id 2); communicator size p with
// one rule per size band, and the sizes below and above p left to Open MPI's own decision.
std::string toOpenMpiRules(const DecisionTable& table, const LibraryVersion& version);

// MPICH's MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM values in this release (coll_algorithms.txt).
// Throws InvalidArgument for releases before 4.0, which read no selection file of this form.
std::vector<std::string> mpichAllreduceAlgorithms(const LibraryVersion& version);
// The selection file for this MPICH (JSON).
std::string toMpichSelectionJson(const DecisionTable& table, const LibraryVersion& version);

}  // namespace ringlab::model
