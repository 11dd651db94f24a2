#include "parse_errors.hpp"

#include <algorithm>
#include <regex>
#include <string_view>

namespace ringlab::cli {
namespace {

// "ringlab", "ringlab bench", "ringlab topo show".
std::string commandName(const CLI::App& command) {
  const CLI::App* parent = command.get_parent();
  return parent ? commandName(*parent) + " " + command.get_name() : "ringlab";
}

std::string seeHelp(const CLI::App& command) {
  return " (" + commandName(command) + " --help lists them)";
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// "--size=1M" -> "--size": the option as typed, without an attached value.
std::string optionWord(const std::string& word) {
  return word.substr(0, word.find('='));
}

bool isOptionWord(const std::string& word) {
  return word.size() > 1 && word[0] == '-' && word != "--";
}

const CLI::App* subcommandNamed(const CLI::App& command, const std::string& name) {
  for (const CLI::App* sub : command.get_subcommands({})) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

// The options a user can give: the hidden ones (nccl-tests' flags bench refuses) are no
// suggestion.
std::vector<const CLI::Option*> visibleOptions(const CLI::App& command) {
  std::vector<const CLI::Option*> options;
  for (const CLI::Option* option : command.get_options()) {
    if (!option->get_group().empty() && option->nonpositional()) options.push_back(option);
  }
  return options;
}

// "-b/--minbytes".
std::string flagNames(const CLI::Option& option) {
  std::string names;
  for (const std::string& s : option.get_snames()) names += (names.empty() ? "-" : "/-") + s;
  for (const std::string& l : option.get_lnames()) names += (names.empty() ? "--" : "/--") + l;
  return names;
}

bool hasOption(const CLI::App& command, const std::string& word) {
  return command.get_option_no_throw(optionWord(word)) != nullptr;
}

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Whether `typed` is close enough to `name` to suggest it: a slip of a letter or two, or one
// word cut from the other ("benchmark", "calib", "--iter").
bool near(std::string_view typed, std::string_view name) {
  const auto bare = [](std::string_view s) { return s.substr(s.find_first_not_of('-')); };
  typed = bare(typed);
  name = bare(name);
  const std::size_t shorter = std::min(typed.size(), name.size());
  if (shorter >= 3 && (startsWith(typed, name) || startsWith(name, typed))) return true;
  return editDistance(typed, name) <= (shorter >= 7 ? 2u : 1u);
}

std::string commandList(const CLI::App& command) {
  std::string list;
  for (const CLI::App* sub : command.get_subcommands({}))
    list += (list.empty() ? "" : ", ") + sub->get_name();
  return list;
}

// Another tool's word for a concept, and ringlab's flag for it (given where the command has it).
struct ConceptHint {
  std::vector<std::string> words;
  std::string flag;  // the command must have it for the hint to apply
  std::string advice;
};

const std::vector<ConceptHint>& conceptHints() {
  static const std::vector<ConceptHint> hints = {
      {{"--size", "-s", "--bytes", "--nbytes", "--msg-size", "--message-size", "--count"},
       "-b",
       "sizes are -b/--minbytes and -e/--maxbytes (one size: -b 1M -e 1M)"},
      {{"-np", "--np", "-N", "--nranks", "--world-size", "--world_size", "--nprocs", "--procs"},
       "-p",
       "the number of ranks is -p/--ranks N"},
      {{"--dtype", "--type", "--data-type"}, "-d", "the datatype is -d/--datatype NAME"},
      {{"--out", "--output", "-O", "--output-file", "--outfile"},
       "--json",
       "machine output is --json FILE (-: standard output)"},
      {{"--model", "--calibration"}, "--profile", "a calibrated profile is --profile FILE"},
      {{"--gantt", "--plot", "--png", "--picture"}, "--svg", "pictures are --svg FILE"},
      {{"--iterations", "--iter", "--niters"}, "-n", "iterations are -n/--iters N"},
      {{"--warmup", "--warmups", "--warmup-iters"},
       "-w",
       "warm-up iterations are -w/--warmup_iters N"},
      {{"--algorithm"}, "--algo", "the algorithm is --algo NAME"},
      {{"--bandwidth"}, "--bw", "the bandwidth is --bw, e.g. 12.5GB/s"},
      {{"--latency"}, "--alpha", "the startup cost is --alpha, e.g. 5us"},
  };
  return hints;
}

// What `word`, an option `command` does not have, should have been.
std::string optionAdvice(const CLI::App& command, const std::string& word) {
  const std::string typed = optionWord(word);
  const std::string head = typed + ": " + commandName(command) + " has no such option";
  for (const ConceptHint& hint : conceptHints()) {
    if (hasOption(command, hint.flag) &&
        std::find(hint.words.begin(), hint.words.end(), typed) != hint.words.end()) {
      return head + "; " + hint.advice;
    }
  }
  const CLI::Option* best = nullptr;
  std::size_t bestDistance = 0;
  for (const CLI::Option* option : visibleOptions(command)) {
    for (const std::string& l : option->get_lnames()) {
      const std::string name = "--" + l;
      const std::size_t d = editDistance(typed, name);
      if (near(typed, name) && (!best || d < bestDistance)) {
        best = option;
        bestDistance = d;
      }
    }
  }
  if (best) return head + "; did you mean " + flagNames(*best) + "?";
  return head + seeHelp(command);
}

// The command words of `args` from `app` down: where they end, and the first word that is no
// command where one belongs (empty when none).
struct CommandWalk {
  const CLI::App* last = nullptr;
  std::size_t used = 0;  // words that named commands
  std::string stray;     // a word that is neither a command nor an option of `last`
};

CommandWalk walkCommands(const CLI::App& app, const std::vector<std::string>& args) {
  CommandWalk walk;
  walk.last = &app;
  for (const std::string& word : args) {
    if (walk.last->get_subcommands({}).empty() || word == "--") break;
    if (isOptionWord(word)) {
      if (hasOption(*walk.last, word)) continue;  // --help, --version
      walk.stray = word;
      break;
    }
    const CLI::App* sub = subcommandNamed(*walk.last, word);
    if (!sub) {
      walk.stray = word;
      break;
    }
    walk.last = sub;
    ++walk.used;
  }
  return walk;
}

// The nearest subcommand of `command` to `word`, if any is near.
const CLI::App* nearestCommand(const CLI::App& command, const std::string& word) {
  const CLI::App* best = nullptr;
  for (const CLI::App* sub : command.get_subcommands({})) {
    if (near(word, sub->get_name()) &&
        (!best || editDistance(word, sub->get_name()) < editDistance(word, best->get_name())))
      best = sub;
  }
  return best;
}

// The first option among `words` that `command` does not have, in its words.
std::optional<std::string> firstUnknownOption(const CLI::App& command,
                                              const std::vector<std::string>& words) {
  for (const std::string& word : words) {
    if (word == "--") break;
    if (isOptionWord(word) && !hasOption(command, word)) return optionAdvice(command, word);
  }
  return std::nullopt;
}

// Another tool's flag among `words` that `command` lacks ("-np 4"): named before CLI11 reads it,
// which would take -np for -n p.
std::optional<std::string> anotherToolsWord(const CLI::App& command,
                                            const std::vector<std::string>& words) {
  for (const std::string& word : words) {
    if (word == "--") break;
    for (const ConceptHint& hint : conceptHints()) {
      const bool listed =
          std::find(hint.words.begin(), hint.words.end(), optionWord(word)) != hint.words.end();
      if (listed && !hasOption(command, word)) return optionAdvice(command, word);
    }
  }
  return std::nullopt;
}

const CLI::App* deepestParsed(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->parsed()) return deepestParsed(*sub);
  }
  return &app;
}

const CLI::Option* optionNamed(const CLI::App& command, const std::string& name) {
  return command.get_option_no_throw(name);
}

std::string displayName(const CLI::App& command, const std::string& name) {
  const CLI::Option* option = optionNamed(command, name);
  return option && option->nonpositional() ? flagNames(*option) : name;
}

// What a value of CLI11's type name is, in words.
std::string typeInWords(const std::string& type) {
  if (type == "INT") return "a whole number";
  if (type == "UINT") return "a whole number, 0 or more";
  if (type == "FLOAT") return "a number";
  return "a value of type " + type;
}

}  // namespace

void collectUnknownArguments(CLI::App& app) {
  app.allow_extras();
  for (CLI::App* sub : app.get_subcommands({})) collectUnknownArguments(*sub);
}

std::optional<std::string> unknownCommand(const CLI::App& app,
                                          const std::vector<std::string>& args) {
  const CommandWalk walk = walkCommands(app, args);
  if (walk.stray.empty()) return anotherToolsWord(*walk.last, args);
  const CLI::App& at = *walk.last;
  const std::string commands = commandList(at);
  if (isOptionWord(walk.stray)) {
    return optionWord(walk.stray) + ": " + commandName(at) +
           " has no such option; give a command " + "first: " + commands + " (" + commandName(at) +
           " alone says what each does)";
  }
  std::string line = walk.stray + ": " + commandName(at) + " has no such command";
  const CLI::App* nearest = nearestCommand(at, walk.stray);
  if (!nearest) return line + "; the commands are " + commands;
  line += "; did you mean " + nearest->get_name() + "?";
  // The options that follow, read as the command meant: the next slip is named at once.
  const std::vector<std::string> rest(args.begin() + static_cast<long>(walk.used) + 1, args.end());
  if (auto option = firstUnknownOption(*nearest, rest)) line += " and " + *option;
  return line;
}

const CLI::App* bareCommand(const CLI::App& app, const std::vector<std::string>& args) {
  const CommandWalk walk = walkCommands(app, args);
  const bool bare = walk.stray.empty() && walk.used == args.size();
  return bare && !walk.last->get_subcommands({}).empty() ? walk.last : nullptr;
}

std::string overview(const CLI::App& command) {
  if (command.get_parent()) return command.help();
  std::string text =
      command.get_description() + "\n\nUsage: ringlab COMMAND [OPTIONS]\n\nCommands:\n";
  for (const CLI::App* sub : command.get_subcommands({})) {
    std::string name = sub->get_name();
    name.resize(std::max<std::size_t>(name.size() + 2, 12), ' ');
    text += "  " + name + sub->get_description() + "\n";
  }
  text +=
      "\nStart here:\n"
      "  ringlab bench -p 4 -b 8 -e 16M         measure AllReduce over 4 ranks (threads)\n"
      "  ringlab verify -p 8 --ring-stride 3    a ring schedule, step by step, and its check\n"
      "  ringlab model -p 8 --size 1G           each algorithm's predicted time\n"
      "  ringlab lab                            the web lab: the ideas, live\n"
      "\nringlab COMMAND --help lists a command's options; ringlab --version its version.\n";
  return text;
}

std::optional<std::string> unknownArgument(const CLI::App& app) {
  for (const CLI::App* command = &app; command;) {
    std::vector<std::string> left = command->remaining();
    // CLI11 keeps the "--" that ends the options among the extras (`launch -p 2 -- COMMAND`).
    left.erase(std::remove(left.begin(), left.end(), "--"), left.end());
    if (!left.empty()) {
      const std::string& word = left.front();
      if (isOptionWord(word)) return optionAdvice(*command, word);
      return word + ": " + commandName(*command) +
             " takes no argument here; a value follows its option (-b 1M, --json out.json)" +
             seeHelp(*command);
    }
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : command->get_subcommands({})) {
      if (sub->parsed()) next = sub;
    }
    command = next;
  }
  return std::nullopt;
}

std::string parseErrorLine(const CLI::App& app, const CLI::ParseError& error) {
  const CLI::App& command = *deepestParsed(app);
  const std::string message = error.what();
  const std::string help = " (see " + commandName(command) + " --help)";
  std::smatch m;
  static const std::regex conversion(R"(^Could not convert: (\S+) = (.*)$)");
  static const std::regex missing(R"(^(\S*): \d+ required (\S+) missing$)");
  static const std::regex excludes(R"(^(\S+) excludes (\S+)$)");
  static const std::regex required(R"(^(\S+) is required$)");
  static const std::regex needs(R"(^(\S+) requires (\S+)$)");
  if (std::regex_match(message, m, conversion)) {
    const CLI::Option* option = optionNamed(command, m[1]);
    const std::string type = option ? option->get_type_name() : "";
    return displayName(command, m[1]) + " " + m[2].str() + ": not " + typeInWords(type) + help;
  }
  if (std::regex_match(message, m, missing)) {
    return displayName(command, m[1]) + " needs a value (" + m[2].str() + ") after it" + help;
  }
  if (std::regex_match(message, m, excludes)) {
    return displayName(command, m[1]) + " and " + displayName(command, m[2]) +
           ": give one of them, not both" + help;
  }
  if (std::regex_match(message, m, needs)) {
    return displayName(command, m[1]) + " needs " + displayName(command, m[2]) + " too" + help;
  }
  if (std::regex_match(message, m, required)) {
    const CLI::Option* option = optionNamed(command, m[1]);
    const std::string what = option ? option->get_description() : m[1].str();
    return commandName(command) + " needs its " + m[1].str() + ": " + what + help;
  }
  return message + help;
}

}  // namespace ringlab::cli
