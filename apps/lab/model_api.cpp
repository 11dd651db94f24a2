// GET /api/model/sizes and /api/model/ranks: panel 3's predictions, from model/sweep (the code
// behind `ringlab model --sweep` and `--vs-p`). Closed forms only, so a request costs microseconds
// whatever p and size it names.
#include <string>

#include "api.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/model_query.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/model/sweep.hpp"

namespace ringlab::lab {
namespace {

// Bounds wide enough for any fabric, narrow enough that every product stays finite. The
// parameters carry their units, as on the command line: alpha=2us, bw=12.5GB/s, gamma=0.2ns/B.
inline constexpr double kMaxAlpha_s = 1;
inline constexpr double kMinBandwidth_Bps = 1e3;
inline constexpr double kMaxBandwidth_Bps = 1e15;
inline constexpr double kMaxGamma_s_per_byte = 1e-3;

model::ModelParams modelParams(const Params& params) {
  const model::ModelParams d = model::defaultProfile().params;
  model::ModelParams m;  // one memory regime, unlimited concurrent transfers: the seed's model
  m.link.alpha_s =
      params.quantity("alpha", parseSeconds, 0, kMaxAlpha_s, "0 to 1s", d.link.alpha_s);
  // beta is per direction (params.hpp): GB/s = 1e9 B/s, one direction.
  m.link.beta_s_per_byte =
      1 / params.quantity("bw", parseBandwidth, kMinBandwidth_Bps, kMaxBandwidth_Bps,
                          "1kB/s to 1000000GB/s", 1 / d.link.beta_s_per_byte);
  m.reduce.gamma_s_per_byte = params.quantity("gamma", parseSecondsPerByte, 0, kMaxGamma_s_per_byte,
                                              "0 to 1000000ns/B", d.reduce.gamma_s_per_byte);
  return m;
}

std::uint64_t countOf(const Params& params, const std::string& name, const std::string& fallback,
                      DataType type) {
  const std::uint64_t bytes = params.size(name, kMaxBytes, fallback);
  try {
    const std::uint64_t count = elementCount(bytes, type, name);
    if (count == 0) throw ApiError(name, name + " = 0 B: give at least one element");
    return count;
  } catch (const Error& e) {
    throw ApiError(name, e.what());
  }
}

}  // namespace

nlohmann::json paramsJson(const model::ModelParams& m) {
  return {{"alpha_us", m.link.alpha_s * 1e6},
          {"bw_GBps", 1e-9 / m.link.beta_s_per_byte},
          {"gamma_ns_per_byte", m.reduce.gamma_s_per_byte * 1e9}};
}

nlohmann::json modelSizesApi(const Params& params) {
  params.allowOnly({"p", "alpha", "bw", "gamma", "min", "max", "dtype"});
  const int p = static_cast<int>(params.integer("p", 2, kMaxModelRanks));
  const DataType type = params.dataType("dtype", "float32");
  const model::ModelParams m = modelParams(params);
  const std::uint64_t minCount = countOf(params, "min", "8", type);
  const std::uint64_t maxCount = countOf(params, "max", "1G", type);
  if (minCount > maxCount) throw ApiError("min", "min is larger than max: need min <= max");
  const std::uint64_t element = dataTypeSize(type);
  nlohmann::json out = model::answerModelQuery({.kind = model::ModelQuery::Kind::Sweep,
                                                .ranks = p,
                                                .type = type,
                                                .minBytes = minCount * element,
                                                .maxBytes = maxCount * element,
                                                .params = m,
                                                .withVolume = false,
                                                .labels = {"size", "min", "max"}})
                           .json;
  out["params"] = paramsJson(m);
  return out;
}

nlohmann::json modelRanksApi(const Params& params) {
  params.allowOnly({"size", "max_p", "alpha", "bw", "gamma", "dtype"});
  const DataType type = params.dataType("dtype", "float32");
  const model::ModelParams m = modelParams(params);
  const std::uint64_t count = countOf(params, "size", "1M", type);
  const int maxP = static_cast<int>(params.integer("max_p", 2, kMaxModelRanks, 64));
  model::ModelQuery query{.kind = model::ModelQuery::Kind::VersusRanks,
                          .type = type,
                          .bytes = count * dataTypeSize(type),
                          .params = m,
                          .labels = {"size", "min", "max"}};
  for (int p = 2; p <= maxP; ++p) query.rankList.push_back(p);
  nlohmann::json out = model::answerModelQuery(query).json;
  out["params"] = paramsJson(m);
  return out;
}

}  // namespace ringlab::lab
