#include "ringlab/model/mpi_exports.hpp"

#include <algorithm>
#include <climits>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model/mpich_default_trees.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/model/registry.hpp"

namespace ringlab::model {

LibraryVersion parseLibraryVersion(std::string_view text, std::string_view what) {
  static const std::regex form(R"(v?(\d{1,4})\.(\d{1,4})(?:\.(\d{1,4}))?(?:[a-z][a-z0-9]*)?)");
  std::cmatch m;
  const std::string s(text);
  if (!std::regex_match(s.c_str(), m, form)) {
    throwInvalid(std::string(what) + " '" + s +
                 "': not a version; give major.minor.release, e.g. 4.1.4");
  }
  LibraryVersion v;
  v.major = std::stoi(m[1].str());
  v.minor = std::stoi(m[2].str());
  v.release = m[3].matched ? std::stoi(m[3].str()) : 0;
  v.text = s;
  return v;
}

bool atLeast(const LibraryVersion& v, int major, int minor, int release) {
  if (v.major != major) return v.major > major;
  if (v.minor != minor) return v.minor > minor;
  return v.release >= release;
}

namespace {

// The value after `key` on the first line that starts with it, trimmed.
std::optional<std::string> valueAfter(std::string_view text, std::string_view key) {
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    std::string value = line.substr(key.size());
    const auto first = value.find_first_not_of(" \t");
    const auto last = value.find_last_not_of(" \t\r");
    if (first == std::string::npos) return std::nullopt;
    return value.substr(first, last - first + 1);
  }
  return std::nullopt;
}

std::optional<LibraryVersion> versionAfter(std::string_view text, std::string_view key,
                                           std::string_view what) {
  const auto value = valueAfter(text, key);
  if (!value) return std::nullopt;
  return parseLibraryVersion(*value, what);
}

}  // namespace

std::optional<LibraryVersion> openMpiVersionFromOmpiInfo(std::string_view text) {
  return versionAfter(text, "ompi:version:full:", "ompi_info's version");
}

std::optional<LibraryVersion> mpichVersionFromMpichversion(std::string_view text) {
  return versionAfter(text, "MPICH Version:", "mpichversion's version");
}

bool openMpiReadsRuleFileVersion2(const LibraryVersion& v) {
  if (v.major == 4 && v.minor == 1) return v.release >= 8;
  if (v.major == 5 && v.minor == 0) return v.release >= 7;
  return atLeast(v, 5, 1, 0);  // later series carry the reader (and main's falls back to it)
}

std::vector<std::string> openMpiAllreduceAlgorithms(const LibraryVersion& v) {
  if (!atLeast(v, 2, 0, 0))
    throwInvalid("Open MPI " + v.text + ": ringlab writes rules for Open MPI 2.0 and later");
  std::vector<std::string> ids = {"ignore", "basic_linear",  "nonoverlapping", "recursive_doubling",
                                  "ring",   "segmented_ring"};
  if (atLeast(v, 4, 0, 0)) ids.push_back("rabenseifner");
  if (atLeast(v, 6, 0, 0)) ids.push_back("allgather_reduce");
  return ids;
}

namespace {

std::string numbered(const std::vector<std::string>& names, int from) {
  std::string text;
  for (std::size_t i = from; i < names.size(); ++i)
    text += (text.empty() ? "" : ", ") + std::to_string(i) + " " + names[i];
  return text;
}

// The registered algorithms that have an Open MPI allreduce equivalent.
std::string withOpenMpiEquivalent() {
  std::vector<std::string> names;
  for (const auto& a : algorithmTable()) {
    if (a->openMpiAllreduceId != 0) names.push_back(a->name);
  }
  return joinedNames(names);
}

int openMpiId(const std::string& algorithm, const LibraryVersion& v,
              const std::vector<std::string>& ids) {
  const int id = openMpiAllreduceAlgorithm(algorithm);
  if (id == 0) {
    throwInvalid("algorithm '" + algorithm + "' has no Open MPI allreduce equivalent; tune with " +
                 withOpenMpiEquivalent() + " to export rules");
  }
  if (id >= static_cast<int>(ids.size())) {
    throwInvalid("algorithm '" + algorithm + "' is Open MPI's allreduce algorithm " +
                 std::to_string(id) + ", which Open MPI " + v.text +
                 " does not have (its algorithms: " + numbered(ids, 1) + ")");
  }
  return id;
}

}  // namespace

std::string toOpenMpiRules(const DecisionTable& t, const LibraryVersion& v) {
  const std::vector<std::string> ids = openMpiAllreduceAlgorithms(v);
  const bool versioned = openMpiReadsRuleFileVersion2(v);
  const std::string tail = versioned ? " 0" : "";  // version 2's max-requests column
  std::ostringstream out;
  // Version 2 must be the file's first word; the classic reader takes "-2" in it for a count.
  if (versioned) out << "rule-file-version-2\n";
  out << "# Open MPI coll/tuned dynamic rules, " << (versioned ? "version 2" : "classic")
      << " format, for Open MPI " << v.text << "\n"
      << "# written by ringlab tune: p = " << t.ranks << ", transport " << t.transport << ", "
      << t.dtype << ", host " << t.host << ", ringlab " << t.ringlabVersion << ", " << t.date
      << "\n"
      << "1 # number of collectives\n"
      << "2 # collective id: allreduce\n"
      << "3 # number of communicator sizes\n"
      // Open MPI takes the largest size listed at or below a communicator's, else the first:
      // sizes below and above p get algorithm 0, its own fixed decision.
      << "1 # communicator size: below " << t.ranks << ", Open MPI's own decision\n"
      << "1 # number of rules\n"
      << "0 0 0 0" << tail << " # algorithm 0: Open MPI's fixed decision\n"
      << t.ranks << " # communicator size\n";
  const std::vector<DecisionRule> rules = t.rules();
  out << rules.size() << " # number of rules\n"
      << "# bytes algorithm faninout segsize" << (versioned ? " maxrequests" : "") << "\n";
  for (const DecisionRule& r : rules) {
    const int id = openMpiId(r.algorithm, v, ids);
    out << r.fromBytes << " " << id << " 0 0" << tail << " # " << r.algorithm << " (Open MPI "
        << ids[id] << ")\n";
  }
  out << t.ranks + 1 << " # communicator size: above " << t.ranks << ", Open MPI's own decision\n"
      << "1 # number of rules\n"
      << "0 0 0 0" << tail << " # algorithm 0: Open MPI's fixed decision\n";
  return out.str();
}

std::vector<std::string> mpichAllreduceAlgorithms(const LibraryVersion& v) {
  if (!atLeast(v, 4, 0, 0)) {
    throwInvalid("MPICH " + v.text + ": ringlab writes the selection file of MPICH 4.0 and later");
  }
  std::vector<std::string> names = {"smp", "recursive_doubling", "reduce_scatter_allgather"};
  if (atLeast(v, 4, 1, 0)) {
    for (const char* n : {"tree", "recexch", "ring", "k_reduce_scatter_allgather"})
      names.push_back(n);
  }
  if (atLeast(v, 4, 3, 0)) names.push_back("recursive_multiplying");
  return names;
}

namespace {

using Tree = nlohmann::ordered_json;  // MPICH reads the keys in file order: order is meaning

Tree algorithmLeaf(const std::string& mpichName) {
  return Tree{{"algorithm=MPIR_Allreduce_intra_" + mpichName, Tree::object()}};
}

// The band's choice, with MPICH's own restrictions on it (coll_algorithms.txt) sent back to
// MPICH's default (`fallback`) where they do not hold.
Tree bandLeaf(const std::string& algorithm, const LibraryVersion& v, const Tree& fallback) {
  const std::vector<std::string> known = mpichAllreduceAlgorithms(v);
  const std::string name = findAlgorithm(algorithm).mpichName;
  if (name.empty() || std::find(known.begin(), known.end(), name) == known.end()) {
    throwInvalid("algorithm '" + algorithm + "' has no allreduce equivalent in MPICH " + v.text +
                 " (its algorithms: " + joinedNames(known) + ")" +
                 (name.empty() ? "" : "; MPICH 4.1 added " + name));
  }
  if (name == "reduce_scatter_allgather") {  // restrictions: size-ge-pof2, builtin-op
    Tree builtIn = Tree::object();
    builtIn["count<pow2"] = fallback;
    builtIn["count=any"] = algorithmLeaf(name);
    Tree leaf = Tree::object();
    leaf["is_op_built_in=yes"] = builtIn;
    leaf["is_op_built_in=no"] = fallback;
    return leaf;
  }
  if (name == "ring") {  // restrictions: commutative
    Tree leaf = Tree::object();
    leaf["is_commutative=yes"] = algorithmLeaf(name);
    leaf["is_commutative=no"] = fallback;
    return leaf;
  }
  return algorithmLeaf(name);
}

}  // namespace

std::string toMpichSelectionJson(const DecisionTable& t, const LibraryVersion& v) {
  mpichAllreduceAlgorithms(v);  // refuses releases before 4.0
  Tree root =
      Tree::parse(atLeast(v, 4, 1, 0) ? detail::kMpichCollGeneric41 : detail::kMpichCollGeneric40);
  Tree& intra = root.at("collective=allreduce").at("comm_type=intra");
  const Tree fallback = intra;
  const std::vector<DecisionRule> rules = t.rules();
  Tree bands = Tree::object();
  for (std::size_t i = 0; i < rules.size(); ++i) {
    std::string key = "avg_msg_size=any";
    if (i + 1 < rules.size()) {
      const std::uint64_t upTo = rules[i + 1].fromBytes;
      if (upTo > static_cast<std::uint64_t>(INT_MAX)) {
        throwInvalid("a size band ends at " + std::to_string(upTo) + " bytes; MPICH reads sizes " +
                     "as int, up to " + std::to_string(INT_MAX));
      }
      key = "avg_msg_size<" + std::to_string(upTo);
    }
    bands[key] = bandLeaf(rules[i].algorithm, v, fallback);
  }
  // Communicators of another size keep MPICH's own choice.
  const std::string p = std::to_string(t.ranks);
  Tree sized = Tree::object();
  sized["comm_size<" + p] = fallback;
  sized["comm_size<=" + p] = bands;
  sized["comm_size=any"] = fallback;
  intra = sized;
  return root.dump(2) + "\n";
}

}  // namespace ringlab::model
