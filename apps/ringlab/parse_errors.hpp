#pragma once
// The parser's errors in ringlab's words. A word where a command belongs that is none, an option
// the command does not have, a value CLI11 could not read: each is one line that names what was
// typed and what is valid, with the nearest command or flag ("benchmark: no such command; did
// you mean bench?") and the flag a concept has here when the user brings another tool's
// ("--size: bench has no such option; sizes are -b/--minbytes and -e/--maxbytes"). A bare
// `ringlab` (or `ringlab topo`) shows what it can do instead of an error.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ringlab::cli {

// Every command, in `app` and below, keeps the arguments it does not know instead of letting
// CLI11 refuse them in its words: unknownArgument() names them after parsing.
void collectUnknownArguments(CLI::App& app);

// Before parsing: walks the command words of `args` (argv without the program). Returns an error
// line (without "ringlab: error: ") for a word that is not a command where one belongs, or an
// option there that the command above has not; nothing when the words are commands.
std::optional<std::string> unknownCommand(const CLI::App& app,
                                          const std::vector<std::string>& args);

// The command that needs a subcommand and was given nothing more (`ringlab`, `ringlab topo`):
// its overview is shown in place of an error. Null otherwise.
const CLI::App* bareCommand(const CLI::App& app, const std::vector<std::string>& args);

// What a bare command prints: for ringlab every command with its line and where to start; for
// others their help.
std::string overview(const CLI::App& command);

// After parsing: the first argument that no option of the parsed commands took, as an error line.
std::optional<std::string> unknownArgument(const CLI::App& app);

// A CLI11 parse error in ringlab's words, as an error line.
std::string parseErrorLine(const CLI::App& app, const CLI::ParseError& error);

}  // namespace ringlab::cli
