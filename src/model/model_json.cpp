#include "ringlab/model/model_json.hpp"

#include "ringlab/model/registry.hpp"

namespace ringlab::model {

nlohmann::json predictionJson(const Prediction& p) {
  nlohmann::json out = costJson(p.cost);
  out["algorithm"] = p.algorithm;
  out["topology"] = kNoTopology;
  out["placement"] = kNoPlacement;
  if (p.volume.perRank.empty()) return out;  // volumes not counted
  out["bytes_per_rank"] = {{"send", p.volume.maxSentBytes},
                           {"send+recv", p.volume.maxSendRecvBytes},
                           {"link-hop", nullptr}};
  out["bytes_per_rank_note"] = "the busiest rank; link-hop needs a topology";
  return out;
}

nlohmann::json sizeJson(const SizeRow& row) {
  nlohmann::json out = nlohmann::json::array();
  for (const Prediction& p : row.predictions) {
    out.push_back(predictionJson(p));
    out.back()["fastest"] = p.algorithm == row.fastest;
  }
  return out;
}

nlohmann::json sweepJson(const SizeSweep& sweep, int p, DataType type) {
  nlohmann::json rows = nlohmann::json::array();
  for (const SizeRow& row : sweep.rows) {
    nlohmann::json r = {{"size_bytes", row.bytes}, {"fastest", row.fastest}};
    for (const Prediction& prediction : row.predictions)
      r["algorithms"].push_back(predictionJson(prediction));
    rows.push_back(r);
  }
  return {{"p", p},
          {"dtype", dataTypeName(type)},
          {"algorithms", candidateAlgorithms()},
          {"rows", rows},
          {"crossovers", toJson(sweep.crossovers)}};
}

nlohmann::json ranksJson(const std::vector<RanksRow>& rows, std::uint64_t bytes, DataType type,
                         double limit_s) {
  nlohmann::json out = nlohmann::json::array();
  for (const RanksRow& row : rows) {
    out.push_back(costJson(row.cost));
    out.back().erase("reduce_us");  // the ring's startup and bandwidth terms as p grows
    out.back()["p"] = row.p;
  }
  return {{"algorithm", schedule::kRing},
          {"size_bytes", bytes},
          {"dtype", dataTypeName(type)},
          {"limit_2n_beta_us", limit_s * 1e6},
          {"rows", out}};
}

}  // namespace ringlab::model
