#include "run_info.hpp"

#include <unistd.h>

#include <ctime>

#include "ringlab/version.hpp"

namespace ringlab::cli {

RunInfo currentRunInfo() {
  RunInfo info;
  info.version = version();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  info.host = host;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  info.date = date;
  return info;
}

nlohmann::json toJson(const RunInfo& info) {
  return {{"ringlab_version", info.version},
          {"transport", info.transport},
          {"algorithm", info.algorithm},
          {"ring_order", info.ringOrder},
          {"topology", info.topology},
          {"placement", info.placement},
          {"p", info.ranks},
          {"dtype", info.dtype},
          {"op", info.op},
          {"host", info.host},
          {"date", info.date}};
}

}  // namespace ringlab::cli
