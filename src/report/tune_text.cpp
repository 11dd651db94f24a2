#include "ringlab/report/tune_text.hpp"

#include <fmt/format.h>

namespace ringlab::report {

std::string tuneText(const measure::TuneConfig& c, const model::DecisionTable& table) {
  std::string text = fmt::format(
      "# ringlab tune: allreduce, p {}, {}, transport {}, host {}, version {}, {}\n"
      "# time(us): out-of-place, median of {} iterations, best of {} interleaved rounds; every "
      "run checked\n# {:>12}",
      table.ranks, table.dtype, table.transport, table.host, table.ringlabVersion, table.date,
      c.iterations, c.rounds, "size (B)");
  for (const std::string& name : c.algorithms) text += fmt::format(" {:>19}", name);
  text += "  fastest\n";
  for (const model::MeasuredSize& m : table.measured) {
    text += fmt::format("  {:>12}", m.bytes);
    for (const std::string& name : c.algorithms)
      text += fmt::format(" {:>19.1f}", m.timeUs.at(name));
    text += fmt::format("  {}\n", m.fastest());
  }
  text += "# rules (from this size up):\n";
  for (const model::DecisionRule& r : table.rules()) {
    text += fmt::format("#   {:12} B  {}\n", r.fromBytes, r.algorithm);
  }
  return text;
}

}  // namespace ringlab::report
