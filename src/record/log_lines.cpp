#include "log_lines.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"

namespace ringlab::record::logs {
namespace {

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "[1,0]<stdout>:" (Open MPI's --tag-output: job, rank, stream): the length to drop, or 0.
std::size_t tagOutputPrefix(std::string_view line) {
  if (line.empty() || line[0] != '[') return 0;
  const std::size_t close = line.find(']');
  if (close == std::string_view::npos) return 0;
  const std::string_view ids = line.substr(1, close - 1);
  const std::size_t comma = ids.find(',');
  if (comma == std::string_view::npos || !allDigits(ids.substr(0, comma)) ||
      !allDigits(ids.substr(comma + 1)))
    return 0;
  for (std::string_view stream : {"<stdout>:", "<stderr>:"}) {
    if (line.substr(close + 1, stream.size()) == stream) return close + 1 + stream.size();
  }
  return 0;
}

// "  0: " (srun -l: the task number): the length to drop, or 0. A row of numbers has no colon.
std::size_t srunLabelPrefix(std::string_view line) {
  std::size_t i = line.find_first_not_of(' ');
  if (i == std::string_view::npos) return 0;
  const std::size_t colon = line.find(':', i);
  if (colon == std::string_view::npos || !allDigits(line.substr(i, colon - i))) return 0;
  if (colon + 1 < line.size() && line[colon + 1] != ' ') return 0;
  return colon + 1;
}

}  // namespace

std::vector<std::string> cleanLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && line.back() == '\r') line.pop_back();
    // A markdown paste indents the tag too ("   [1,0]<stdout>:...").
    const std::size_t indent = std::min(line.find_first_not_of(" \t"), line.size());
    std::size_t drop = tagOutputPrefix(std::string_view(line).substr(indent));
    drop = drop > 0 ? indent + drop : srunLabelPrefix(line);
    lines.push_back(line.substr(drop));
  }
  return lines;
}

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

std::string joinedWords(const std::vector<std::string>& w) {
  std::string s;
  for (const std::string& x : w) s += (s.empty() ? "" : " ") + x;
  return s;
}

bool isNcclDebugLine(const std::string& line) {
  if (line.find(" NCCL INFO ") != std::string::npos) return true;
  if (line.find(" NCCL WARN ") != std::string::npos) return true;
  const std::vector<std::string> w = words(line);
  return w.size() >= 2 && w[0] == "NCCL" && w[1] == "version";
}

int nranksIn(const std::string& line) {
  const std::vector<std::string> w = words(line);
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    if ((w[i] == "nranks" || w[i] == "nRanks") && allDigits(w[i + 1]) && w[i + 1].size() < 8)
      return std::stoi(w[i + 1]);
  }
  return 0;
}

int resolveRanks(int stated, const std::string& how, const LogOptions& options,
                 const std::string& name, const std::string& missing,
                 std::vector<std::string>& notes) {
  const std::string& given = options.ranksName;
  if (options.ranks && *options.ranks < 1)
    throwInvalid(
        fmt::format("{} {}: the number of ranks must be at least 1", given, *options.ranks));
  if (stated > 0) {
    if (options.ranks && *options.ranks != stated) {
      throwInvalid(fmt::format("{}: {} {} but the log says p = {} ({})", name, given,
                               *options.ranks, stated, how));
    }
    return stated;
  }
  if (!options.ranks) {
    throwInvalid(fmt::format("{}: {}; give the number of ranks with {} N", name, missing, given));
  }
  notes.push_back(fmt::format("p = {} from {}: {}", *options.ranks, given, missing));
  return *options.ranks;
}

std::vector<LoggedRun> namedRuns(std::vector<std::vector<LoggedRun>> runs) {
  std::vector<LoggedRun> named;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (LoggedRun& run : runs[i]) {
      std::string name = runs.size() > 1 ? fmt::format("run {} of {}", i + 1, runs.size()) : "";
      if (runs[i].size() > 1) {
        name += (name.empty() ? "" : ", ") + run.record.run.dtype + " " + run.record.run.op;
      }
      run.name = name;
      named.push_back(std::move(run));
    }
  }
  return named;
}

}  // namespace ringlab::record::logs
