#pragma once
// What every measurement record carries, so a figure can be traced to what produced it.
#include <string>

#include <nlohmann/json.hpp>

namespace ringlab::cli {

struct RunInfo {
  std::string version;
  std::string transport;
  std::string algorithm;
  std::string ringOrder;
  std::string topology;
  std::string placement;  // which rank sits where
  int ranks = 0;
  std::string dtype;
  std::string op;
  std::string host;
  std::string date;  // UTC, ISO 8601
};

// Fills version, host and date; the caller fills the rest.
RunInfo currentRunInfo();
nlohmann::json toJson(const RunInfo& info);

}  // namespace ringlab::cli
