#include "ringlab/model/setup_use.hpp"

#include <vector>

#include "ringlab/core/error.hpp"

namespace ringlab::model {

std::string checkSetupUse(const MeasuredSetup& made, const std::string& source,
                          const SetupUse& use) {
  if (made.transport != use.transport && !use.anyTransport) {
    const SetupLabels& l = use.labels;
    throwInvalid(made.option + " " + source + " was " + made.verb + " over " + made.transport +
                 ", this run uses " + use.transport + ": " + made.command + " one over " +
                 use.transport +
                 (l.remake ? " (" + l.remake(made.command, use.transport) + ")" : "") + ", or " +
                 l.allowAnyTransport + " to use this " + made.kind + " anyway");
  }
  std::vector<std::string> differences;
  if (made.transport != use.transport)
    differences.push_back("transport " + made.transport + " (this run: " + use.transport + ")");
  if (made.ranks > 0 && made.ranks != use.ranks) {
    differences.push_back("p " + std::to_string(made.ranks) +
                          " (this run: " + std::to_string(use.ranks) + ")");
  }
  if (!made.host.empty() && made.host != "-" && made.host != use.host)
    differences.push_back("host " + made.host + " (this run: " + use.host + ")");
  if (differences.empty()) return "";
  std::string line = "note: " + made.kind + " " + source + " was " + made.verb + " with another ";
  for (std::size_t i = 0; i < differences.size(); ++i)
    line.append(i == 0 ? "" : ", ").append(differences[i]);
  return line + "; " + made.meaning;
}

}  // namespace ringlab::model
