#include "ringlab/io/files.hpp"

#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/core/json_text.hpp"

namespace ringlab::io {

nlohmann::json readJsonFile(const std::string& path, std::string_view what, InputBound bound) {
  return readJsonFile(path, what, bound, nullptr);
}

nlohmann::json readJsonFile(const std::string& path, std::string_view what, InputBound bound,
                            const nlohmann::json::parser_callback_t& keep) {
  return parseJsonText(readTextFile(path, what, bound), fmt::format("{} {}", what, path), keep);
}

void writeTextFile(const std::string& path, std::string_view text, std::string_view what) {
  std::ofstream out(path, std::ios::binary);
  if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) throwInvalid(fmt::format("{} {}: cannot be written", what, path));
}

void writeTextOrStdout(const std::string& path, std::string_view text, std::string_view what) {
  if (path != "-") return writeTextFile(path, text, what);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (std::fflush(stdout) != 0)
    throwInvalid(fmt::format("{} -: standard output cannot be written", what));
}

}  // namespace ringlab::io
