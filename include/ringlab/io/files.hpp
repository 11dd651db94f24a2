#pragma once
// The files every front end reads and writes whole: JSON read through the one bounded reader
// (core/file.hpp), and text written in one piece, each error naming the option or role and path.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ringlab/core/file.hpp"

namespace ringlab::io {

// The file parsed as JSON. Throws InvalidArgument "<what> <path>: ..." when it cannot be read
// (missing, a directory, not a regular file, over its format's bound) or is not valid JSON.
nlohmann::json readJsonFile(const std::string& path, std::string_view what,
                            InputBound bound = kAnyInput);
// The same, with values dropped while parsing where `keep` says so (nlohmann's parser callback),
// so that a large file is held as only what is read from it.
nlohmann::json readJsonFile(const std::string& path, std::string_view what, InputBound bound,
                            const nlohmann::json::parser_callback_t& keep);

// Writes `text` to `path`, replacing it. Throws InvalidArgument "<what> <path>: cannot be written".
void writeTextFile(const std::string& path, std::string_view text, std::string_view what);

// As writeTextFile, except that the path "-" is standard output (the convention of every
// `--json FILE`).
void writeTextOrStdout(const std::string& path, std::string_view text, std::string_view what);

}  // namespace ringlab::io
