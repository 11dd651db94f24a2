#include "ringlab/model/model_json.hpp"

namespace ringlab::model {

nlohmann::json predictionJson(const Prediction& p) {
  nlohmann::json out = costJson(p.cost);
  out["algorithm"] = p.algorithm;
  out["topology"] = kNoTopology;
  out["placement"] = kNoPlacement;
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

nlohmann::json sweepJson(const SizeSweep& sweep) {
  nlohmann::json rows = nlohmann::json::array();
  for (const SizeRow& row : sweep.rows) {
    nlohmann::json r = {{"size_bytes", row.bytes}, {"fastest", row.fastest}};
    for (const Prediction& p : row.predictions) r["algorithms"].push_back(predictionJson(p));
    rows.push_back(r);
  }
  return {{"rows", rows}, {"crossovers", toJson(sweep.crossovers)}};
}

nlohmann::json ranksJson(const std::vector<RanksRow>& rows, double limit_s) {
  nlohmann::json out = nlohmann::json::array();
  for (const RanksRow& row : rows) {
    nlohmann::json r = costJson(row.cost);
    r.erase("reduce_us");  // --vs-p prices the ring's startup and bandwidth terms
    r["p"] = row.p;
    r["limit_2n_beta_us"] = limit_s * 1e6;
    out.push_back(r);
  }
  return out;
}

}  // namespace ringlab::model
