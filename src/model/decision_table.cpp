#include "ringlab/model/decision_table.hpp"

#include <algorithm>
#include <limits>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/json_text.hpp"
#include "ringlab/core/limits.hpp"
#include "ringlab/model/cost.hpp"
#include "ringlab/model/registry.hpp"

namespace ringlab::model {

std::string MeasuredSize::fastest() const {
  std::string best;
  for (const auto& [name, us] : timeUs) {
    if (best.empty() || us < timeUs.at(best)) best = name;
  }
  return best;
}

std::vector<DecisionRule> DecisionTable::rules() const {
  std::vector<DecisionRule> out;
  for (const MeasuredSize& m : measured) {
    const std::string winner = m.choice();
    if (out.empty()) {
      out.push_back({0, winner});
    } else if (out.back().algorithm != winner) {
      out.push_back({m.bytes, winner});
    }
  }
  return out;
}

std::string DecisionTable::choose(std::uint64_t bytes) const {
  std::string chosen = "ring";
  for (const DecisionRule& r : rules()) {
    if (r.fromBytes <= bytes) chosen = r.algorithm;
  }
  return chosen;
}

nlohmann::json toJson(const DecisionTable& t) {
  nlohmann::json measured = nlohmann::json::array();
  for (const MeasuredSize& m : t.measured) {
    nlohmann::json size = {{"bytes", m.bytes}, {"time_us", m.timeUs}, {"fastest", m.fastest()}};
    if (!m.roundsUs.empty()) size["rounds_us"] = m.roundsUs;
    if (!m.chosen.empty()) size["chosen"] = m.chosen;
    if (m.margin) {
      size["margin"] = {{"algorithm", m.margin->algorithm},
                        {"ratio", m.margin->ratio},
                        {"low", m.margin->low},
                        {"high", m.margin->high},
                        {"level", m.margin->level}};
    }
    measured.push_back(size);
  }
  nlohmann::json rules = nlohmann::json::array();
  for (const DecisionRule& r : t.rules())
    rules.push_back({{"from_bytes", r.fromBytes}, {"algorithm", r.algorithm}});
  return {{"format", kDecisionTableFormat},
          {"p", t.ranks},
          {"transport", t.transport},
          {"placement", t.placement},
          {"dtype", t.dtype},
          {"host", t.host},
          {"ringlab_version", t.ringlabVersion},
          {"date", t.date},
          {"default_algorithm", t.defaultAlgorithm},
          // Per size, over its challengers together (each margin's level is its own interval's).
          {"confidence", kTuneConfidence},
          {"multiple_comparisons", "bonferroni"},
          {"rules", rules},
          {"measured", measured}};
}

std::string checkDecisionTableUse(const DecisionTable& t, const std::string& source,
                                  const SetupUse& use) {
  return checkSetupUse({"decision table", use.labels.table, "measured", "tune",
                        "its choices were the fastest there", t.transport, t.ranks, t.host},
                       source, use);
}

DecisionTable decisionTableFromJson(const nlohmann::json& j, const std::string& source) {
  const auto fail = [&](const std::string& what) -> void {
    throwInvalid("decision table " + source + ": " + what +
                 "; write a new one with `ringlab tune`");
  };
  if (!j.is_object() || !j.contains("format") || !j["format"].is_string())
    fail("no \"format\" field");
  if (j["format"] != kDecisionTableFormat) {
    fail("format " + j["format"].get<std::string>() + ", this ringlab reads " +
         kDecisionTableFormat);
  }
  DecisionTable t;
  try {
    const std::string where = "decision table " + source;
    t.ranks = static_cast<int>(jsonWhole(j.at("p"), where, "p", 1, kMaxRanks));
    t.transport = j.at("transport").get<std::string>();
    t.placement = j.value("placement", "");  // tables from before placements were recorded
    t.defaultAlgorithm = j.value("default_algorithm", "");
    t.dtype = j.at("dtype").get<std::string>();
    try {
      // A type ringlab runs ("": not recorded): a table's times say nothing of another type.
      if (!t.dtype.empty()) parseDataType(t.dtype);
    } catch (const Error& e) {
      fail(std::string("dtype: ") + e.what());
    }
    t.host = j.at("host").get<std::string>();
    t.ringlabVersion = j.at("ringlab_version").get<std::string>();
    t.date = j.at("date").get<std::string>();
    for (const auto& m : j.at("measured")) {
      MeasuredSize size;
      size.bytes = static_cast<std::uint64_t>(
          jsonWhole(m.at("bytes"), where, "bytes", 0, static_cast<std::int64_t>(kMaxModelBytes)));
      size.timeUs = m.at("time_us").get<std::map<std::string, double>>();
      if (m.contains("rounds_us"))
        size.roundsUs = m["rounds_us"].get<std::map<std::string, std::vector<double>>>();
      size.chosen = m.value("chosen", "");
      if (m.contains("margin")) {
        const auto& g = m["margin"];
        // A ratio of two times, at most what two times can differ by; its interval non-negative
        // and finite however wide (over two rounds that disagree, Student's t with one degree of
        // freedom stretches it past 1e40); a confidence level below 1.
        const auto number = [&](const char* key, double max) {
          return jsonNumber(g.at(key), where, std::string("margin.") + key, 0, max);
        };
        const double wide = std::numeric_limits<double>::max();
        size.margin = Margin{g.at("algorithm").get<std::string>(), number("ratio", 1e12),
                             number("low", wide), number("high", wide),
                             g.contains("level")
                                 ? jsonNumber(g["level"], where, "margin.level", 0.5, 0.999999)
                                 : 0.95};
      }
      const std::vector<std::string> known = algorithmNames();
      const auto measuredHere = [&](const std::string& name, const char* field) {
        if (std::find(known.begin(), known.end(), name) == known.end())
          fail("unknown algorithm '" + name + "'");
        if (!size.timeUs.count(name))
          fail(std::string(field) + " '" + name + "' at " + std::to_string(size.bytes) +
               " bytes has no time_us");
      };
      for (const auto& [name, us] : size.timeUs) {
        measuredHere(name, "time_us");
        if (!(us > 0 && us <= 1e12))
          fail("time for " + name + " = " + nlohmann::json(us).dump() +
               " us: must be > 0 and <= 1e12");
      }
      for (const auto& [name, rounds] : size.roundsUs) {
        measuredHere(name, "rounds_us");
        for (const double us : rounds)
          if (!(us > 0 && us <= 1e12))
            fail("a round of " + name + " = " + nlohmann::json(us).dump() +
                 " us: must be > 0 and <= 1e12");
      }
      if (!size.chosen.empty()) measuredHere(size.chosen, "chosen");
      if (size.margin) measuredHere(size.margin->algorithm, "margin");
      if (size.timeUs.empty()) fail("a size with no measured algorithm");
      t.measured.push_back(size);
    }
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("missing or mistyped field (") + e.what() + ")");
  }
  if (t.measured.empty()) fail("no measured sizes");
  return t;
}

}  // namespace ringlab::model
