#include "ringlab/report/tune_text.hpp"

#include <fmt/format.h>

#include "ringlab/record/tune_decision.hpp"

namespace ringlab::report {
namespace {

// "x0.412 [0.380, 0.447]": an algorithm's time over the default's, with its interval (at the
// level the header states).
std::string ratioText(const model::Margin& m) {
  return fmt::format("x{:.3f} [{:.3f}, {:.3f}]", m.ratio, m.low, m.high);
}

// Why a size has its choice: the winner's lead over the default, or the closest other
// algorithm's, which did not clear the noise.
std::string marginText(const model::MeasuredSize& m) {
  if (!m.margin) return "";
  if (m.margin->algorithm == m.choice()) return ratioText(*m.margin);
  return fmt::format("kept; {} {}", m.margin->algorithm, ratioText(*m.margin));
}

// The sizes where the default was kept although another algorithm looked faster: what a second
// run may decide otherwise, and what more rounds (--rounds) would settle.
std::string undecidedText(const model::DecisionTable& table) {
  std::string sizes;
  for (const model::MeasuredSize& m : table.measured) {
    if (m.undecided()) sizes += fmt::format("{}{}", sizes.empty() ? "" : ", ", m.bytes);
  }
  if (sizes.empty()) return "";
  return fmt::format(
      "# undecided (bytes): {}: {} kept, another algorithm looked faster but the rounds could not "
      "tell them apart; more rounds would settle it\n",
      sizes, table.defaultAlgorithm);
}

}  // namespace

std::string tuneText(const record::TuneMethod& method, const model::DecisionTable& table) {
  const std::size_t challengers = method.algorithms.size() - 1;
  const double level = record::comparisonLevel(challengers);
  std::string text = fmt::format(
      "# ringlab tune: allreduce, p {}, {}, transport {} ({}), host {}, version {}, {}\n"
      "# time(us): out-of-place, median of {} iterations (slowest rank), median over {} "
      "interleaved rounds; every run checked\n"
      "# every rank decided this table from rank 0's rounds; the {} ranks' decisions checked "
      "identical\n"
      "{}\n# {:>12}",
      table.ranks, table.dtype, table.transport, table.placement, table.host, table.ringlabVersion,
      table.date, method.iterations, method.rounds, table.ranks,
      challengers == 0
          ? fmt::format("# {} is the only algorithm measured: it is kept at every size",
                        table.defaultAlgorithm)
          : fmt::format("# an algorithm replaces the default, {}, only where its time / {}'s over "
                        "the rounds has an interval wholly below 1 at {:.2f}% each ({:.0f}% per "
                        "size, Bonferroni over {} challenger{})",
                        table.defaultAlgorithm, table.defaultAlgorithm, 100 * level,
                        100 * model::kTuneConfidence, challengers, challengers == 1 ? "" : "s"),
      "size (B)");
  for (const std::string& name : method.algorithms) text += fmt::format(" {:>19}", name);
  text += fmt::format("  {:<19} margin: time / {}'s [{:.2f}% interval]\n", "chosen",
                      table.defaultAlgorithm, 100 * level);
  for (const model::MeasuredSize& m : table.measured) {
    text += fmt::format("  {:>12}", m.bytes);
    for (const std::string& name : method.algorithms)
      text += fmt::format(" {:>19.1f}", m.timeUs.at(name));
    text += fmt::format("  {:<19} {}\n", m.choice(), marginText(m));
  }
  text += "# rules (from this size up):\n";
  for (const model::DecisionRule& r : table.rules()) {
    text += fmt::format("#   {:12} B  {}\n", r.fromBytes, r.algorithm);
  }
  return text + undecidedText(table);
}

}  // namespace ringlab::report
