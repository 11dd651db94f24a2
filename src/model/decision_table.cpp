#include "ringlab/model/decision_table.hpp"

#include <algorithm>

#include "ringlab/core/error.hpp"
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
  return checkSetupUse({"decision table", "--tuned", "measured", "tune",
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
    // Read wide and checked before narrowing: p = 2^32 + 2 is not p = 2.
    const std::uint64_t ranks = j.at("p").get<std::uint64_t>();
    if (!j["p"].is_number_integer() || j["p"].get<std::int64_t>() < 1 || ranks < 1 ||
        ranks > (1 << 20))
      fail("p = " + j["p"].dump() + ": must be a whole number in 1..1048576");
    t.ranks = static_cast<int>(ranks);
    t.transport = j.at("transport").get<std::string>();
    t.placement = j.value("placement", "");  // tables from before placements were recorded
    t.defaultAlgorithm = j.value("default_algorithm", "");
    t.dtype = j.at("dtype").get<std::string>();
    t.host = j.at("host").get<std::string>();
    t.ringlabVersion = j.at("ringlab_version").get<std::string>();
    t.date = j.at("date").get<std::string>();
    for (const auto& m : j.at("measured")) {
      if (!m.at("bytes").is_number_integer() || m["bytes"].get<std::int64_t>() < 0 ||
          m["bytes"].get<std::uint64_t>() > kMaxModelBytes)
        fail("bytes = " + m["bytes"].dump() + ": must be a whole number in 0..2^53");
      MeasuredSize size;
      size.bytes = m.at("bytes").get<std::uint64_t>();
      size.timeUs = m.at("time_us").get<std::map<std::string, double>>();
      if (m.contains("rounds_us"))
        size.roundsUs = m["rounds_us"].get<std::map<std::string, std::vector<double>>>();
      size.chosen = m.value("chosen", "");
      if (m.contains("margin")) {
        const auto& g = m["margin"];
        size.margin =
            Margin{g.at("algorithm").get<std::string>(), g.at("ratio").get<double>(),
                   g.at("low").get<double>(), g.at("high").get<double>(), g.value("level", 0.95)};
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
      for (const auto& entry : size.roundsUs) measuredHere(entry.first, "rounds_us");
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
