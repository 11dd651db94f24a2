// One command-line language (docs/cli.md): walks every command's --help, as a user reads it, and
// checks that each shared concept has one flag everywhere, that the old names are gone, and that
// every quantity option refuses a bare number with the accepted forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "run_ringlab.hpp"

namespace ringlab::test {
namespace {

struct HelpOption {
  std::set<std::string> names;  // "-p", "--ranks"
  std::string type;             // INT, TEXT, FILE, TIME, ...; empty for a flag
  std::string defaultValue;
};

struct Command {
  std::vector<std::string> path;  // {"topo", "show"}
  std::vector<HelpOption> options;
  std::string name() const {
    std::string s = "ringlab";
    for (const std::string& word : path) s += " " + word;
    return s;
  }
};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The names under "Subcommands:" in a CLI11 help text.
std::vector<std::string> subcommandsIn(const std::string& help) {
  std::vector<std::string> names;
  bool inSection = false;
  static const std::regex entry(R"(^  ([a-z][a-z-]*)\s)");
  for (const std::string& line : lines(help)) {
    if (line == "Subcommands:") inSection = true;
    std::smatch m;
    if (inSection && std::regex_search(line, m, entry)) names.push_back(m[1]);
  }
  return names;
}

// "  -p,--ranks INT=4   number of ranks" -> {-p, --ranks}, INT, 4.
std::vector<HelpOption> optionsIn(const std::string& help) {
  static const std::regex entry(R"(^  (-[^ ]+)(?: ([A-Z][A-Z|]*)(?:=(\S*))?)?)");
  std::vector<HelpOption> options;
  for (const std::string& line : lines(help)) {
    std::smatch m;
    if (!std::regex_search(line, m, entry)) continue;
    HelpOption option;
    std::istringstream names(m[1].str());
    for (std::string name; std::getline(names, name, ',');) option.names.insert(name);
    option.type = m[2];
    option.defaultValue = m[3];
    if (!option.names.count("--help")) options.push_back(option);
  }
  return options;
}

// Every command that runs (topo's subcommands, not topo), read from the help texts.
const std::vector<Command>& commands() {
  static const std::vector<Command> all = [] {
    std::vector<Command> found;
    std::vector<std::vector<std::string>> pending = {{}};
    while (!pending.empty()) {
      const std::vector<std::string> path = pending.back();
      pending.pop_back();
      std::vector<std::string> args = path;
      args.push_back("--help");
      const CliResult r = runRinglab(args);
      EXPECT_EQ(r.status, 0) << r.err;
      const std::vector<std::string> subs = subcommandsIn(r.out);
      for (const std::string& sub : subs) {
        std::vector<std::string> next = path;
        next.push_back(sub);
        pending.push_back(next);
      }
      if (subs.empty()) found.push_back({path, optionsIn(r.out)});
    }
    return found;
  }();
  return all;
}

const Command* findCommand(const std::string& name) {
  for (const Command& c : commands()) {
    if (c.name() == name) return &c;
  }
  return nullptr;
}

TEST(CliVocabulary, EveryCommandIsWalked) {
  for (const char* name :
       {"ringlab bench", "ringlab verify", "ringlab model", "ringlab calibrate", "ringlab compare",
        "ringlab tune", "ringlab launch", "ringlab lab", "ringlab topo show", "ringlab topo search",
        "ringlab topo detect", "ringlab sim", "ringlab plan"}) {
    const Command* c = findCommand(name);
    ASSERT_NE(c, nullptr) << name << " not found in the help texts";
    if (std::string(name) != "ringlab lab") {
      EXPECT_GE(c->options.size(), 2u) << name;
    }
  }
}

// Each concept: the names a user might reach for, and the one set of flags it has everywhere.
struct Concept {
  const char* what;
  std::set<std::string> family;  // any option with one of these names is this concept
  std::set<std::string> flags;   // ... and must have exactly these
};

const std::vector<Concept> kConcepts = {
    {"ranks", {"-p", "--ranks", "-np", "--np", "--nranks", "--world-size"}, {"-p", "--ranks"}},
    {"profile", {"--profile", "--model"}, {"--profile"}},
    {"machine output", {"--json"}, {"--json"}},
    {"picture", {"--svg", "--gantt", "--plot"}, {"--svg"}},
    {"op", {"-o", "--op"}, {"-o", "--op"}},
    {"dtype", {"-d", "--datatype", "--dtype"}, {"-d", "--datatype"}},
    {"smallest size", {"-b", "--minbytes"}, {"-b", "--minbytes"}},
    {"largest size", {"-e", "--maxbytes"}, {"-e", "--maxbytes"}},
    {"step factor", {"-f", "--stepfactor"}, {"-f", "--stepfactor"}},
    {"iterations", {"-n", "--iters"}, {"-n", "--iters"}},
    {"warm-up iterations", {"-w", "--warmup_iters"}, {"-w", "--warmup_iters"}},
};

std::string joined(const std::set<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

TEST(CliVocabulary, EachSharedConceptHasOneFlagEverywhere) {
  std::map<std::string, int> seen;
  for (const Command& c : commands()) {
    for (const HelpOption& o : c.options) {
      for (const Concept& k : kConcepts) {
        const bool member = std::any_of(o.names.begin(), o.names.end(),
                                        [&](const std::string& n) { return k.family.count(n); });
        if (!member) continue;
        ++seen[k.what];
        EXPECT_EQ(o.names, k.flags) << c.name() << ": the " << k.what << " is " << joined(o.names)
                                    << ", elsewhere " << joined(k.flags);
      }
    }
  }
  // Each concept is shared: it appears in at least two commands.
  for (const Concept& k : kConcepts) EXPECT_GE(seen[k.what], 2) << k.what;
}

// A flag shared by several commands means the same there: the same aliases and the same type.
TEST(CliVocabulary, ASharedFlagHasTheSameAliasesAndTypeEverywhere) {
  std::map<std::string, std::pair<std::string, const HelpOption*>> first;  // name -> command, opt
  for (const Command& c : commands()) {
    for (const HelpOption& o : c.options) {
      for (const std::string& name : o.names) {
        const auto [it, inserted] = first.try_emplace(name, c.name(), &o);
        if (inserted) continue;
        EXPECT_EQ(joined(o.names), joined(it->second.second->names))
            << name << " in " << c.name() << " and " << it->second.first;
        EXPECT_EQ(o.type, it->second.second->type)
            << name << " in " << c.name() << " and " << it->second.first;
      }
    }
  }
}

TEST(CliVocabulary, TheOldNamesAreGone) {
  const std::set<std::string> old = {"--model", "--out", "--output", "--gantt", "-T"};
  for (const Command& c : commands()) {
    for (const HelpOption& o : c.options) {
      for (const std::string& name : o.names)
        EXPECT_FALSE(old.count(name)) << c.name() << " " << name;
      // Machine output and pictures name a file; "-o" is the reduction op alone.
      if (o.names.count("--json") || o.names.count("--svg")) {
        EXPECT_EQ(o.type, "FILE") << c.name();
      }
      if (o.names.count("-o")) {
        EXPECT_TRUE(o.names.count("--op")) << c.name();
      }
    }
  }
}

TEST(CliVocabulary, RanksDefaultToFourWherePIsFree) {
  for (const char* name : {"ringlab bench", "ringlab tune", "ringlab model", "ringlab verify",
                           "ringlab plan", "ringlab launch"}) {
    const Command* c = findCommand(name);
    ASSERT_NE(c, nullptr) << name;
    const auto ranks = std::find_if(c->options.begin(), c->options.end(),
                                    [](const HelpOption& o) { return o.names.count("-p") > 0; });
    ASSERT_NE(ranks, c->options.end()) << name << " has no -p";
    EXPECT_EQ(ranks->defaultValue, "4") << name;
  }
}

// What a bare 5 gets, by the option's type in the help.
const std::map<std::string, std::string> kBareMessage = {
    {"TIME", "5: a time needs a unit, e.g. 5us, 5ms, 5s"},
    {"BANDWIDTH", "5: a bandwidth needs a unit, e.g. 5GB/s, 5GiB/s, 5Gb/s"},
    {"COST|RATE", "5: a per-byte cost needs a unit, e.g. 5ns/B"},
};

// Names that say "a time or a bandwidth": such an option must be typed as a quantity.
bool looksLikeAQuantity(const std::string& name) {
  static const std::set<std::string> named = {"--alpha", "--bw",   "--gamma", "--timeout",
                                              "--grace", "--time", "--intra", "--latency"};
  const bool endsInBw = name.size() > 3 && name.compare(name.size() - 3, 3, "-bw") == 0;
  return named.count(name) || endsInBw;
}

TEST(CliVocabulary, EveryQuantityRefusesABareNumber) {
  std::set<std::string> checked;
  for (const Command& c : commands()) {
    for (const HelpOption& o : c.options) {
      const std::string name = *o.names.rbegin();  // the long name
      const auto message = kBareMessage.find(o.type);
      const bool quantity = message != kBareMessage.end();
      EXPECT_EQ(quantity, looksLikeAQuantity(name)) << c.name() << " " << name << " " << o.type;
      if (!quantity) continue;
      std::vector<std::string> args = c.path;
      args.push_back(name);
      args.push_back("5");
      const CliResult r = runRinglab(args);
      EXPECT_EQ(r.status, 2) << c.name() << " " << name << ": " << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_EQ(r.err.rfind("ringlab: error: " + name, 0), 0u) << r.err;
      EXPECT_NE(r.err.find(message->second), std::string::npos) << c.name() << ": " << r.err;
      checked.insert(name);
    }
  }
  for (const char* name : {"--alpha", "--bw", "--gamma", "--timeout", "--grace", "--time",
                           "--copy-bw", "--reduce-bw", "--intra", "--nic-bw"}) {
    EXPECT_TRUE(checked.count(name)) << name << " was not found as a quantity option";
  }
}

// --json - puts the JSON alone on standard output.
TEST(CliVocabulary, JsonDashIsStandardOutputAlone) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"model", "--size", "1M", "--json", "-"},
        std::vector<std::string>{"topo", "show", "--topo", "nodes=2,ranks=2", "--json", "-"}}) {
    const CliResult r = runRinglab(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    ASSERT_FALSE(r.out.empty());
    EXPECT_TRUE(r.out.front() == '{' || r.out.front() == '[') << r.out;
    EXPECT_EQ(r.out.find("\n#"), std::string::npos) << "text beside the JSON: " << r.out;
  }
}

// Files are FILE in every command, the help holds no validator text of CLI11's ("INT:INT in [1 -
// 1048576]"), and the commands that price with a model take --profile and --gamma alike.
TEST(CliVocabulary, HelpReadsTheSameEverywhere) {
  const std::set<std::string> files = {
      "--profile",    "--json",           "--svg",           "--topo-file",   "--nccl-topo",
      "--overlay",    "--tuned",          "--timeline",      "--trace",       "--params",
      "--measured",   "--write-timeline", "--save-topology", "--export-file", "--hostfile",
      "--ompi-rules", "--mpich-json"};
  for (const Command& c : commands()) {
    bool profile = false, gamma = false;
    for (const HelpOption& o : c.options) {
      const std::string name = *o.names.rbegin();
      if (files.count(name)) {
        EXPECT_EQ(o.type, "FILE") << c.name() << " " << name;
      }
      profile = profile || o.names.count("--profile");
      gamma = gamma || o.names.count("--gamma");
    }
    EXPECT_EQ(profile, gamma) << c.name() << ": --profile and --gamma come together";
    std::vector<std::string> args = c.path;
    args.push_back("--help");
    const CliResult r = runRinglab(args);
    EXPECT_EQ(r.out.find(" in ["), std::string::npos) << c.name() << ": " << r.out;
    if (c.name() == "ringlab compare") {
      EXPECT_NE(r.out.find("  files FILE"), std::string::npos) << r.out;
    }
  }
  for (const char* name :
       {"ringlab sim", "ringlab model", "ringlab compare", "ringlab plan", "ringlab bench"}) {
    const Command* c = findCommand(name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_TRUE(std::any_of(c->options.begin(), c->options.end(), [](const HelpOption& o) {
      return o.names.count("--gamma") > 0;
    })) << name;
  }
}

}  // namespace
}  // namespace ringlab::test
