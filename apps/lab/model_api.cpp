// GET /api/model/sizes and /api/model/ranks: panel 3's predictions, from model/predict (the code
// behind `ringlab model --sweep` and `--vs-p`). Closed forms only, so a request costs microseconds
// whatever p and size it names.
#include <string>

#include "api.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/model/profile.hpp"

namespace ringlab::lab {
namespace {

// Bounds wide enough for any fabric, narrow enough that every product stays finite.
inline constexpr double kMaxAlphaUs = 1e6;
inline constexpr double kMinBandwidthGBps = 1e-6;
inline constexpr double kMaxBandwidthGBps = 1e6;
inline constexpr double kMaxGammaNsPerByte = 1e6;

model::ModelParams modelParams(const Params& params) {
  const model::ModelParams d = model::defaultProfile().params;
  model::ModelParams m;  // one memory regime, unlimited concurrent transfers: the seed's model
  m.link.alpha_s = params.number("alpha_us", 0, kMaxAlphaUs, d.link.alpha_s * 1e6) * 1e-6;
  // beta is per direction (params.hpp): bandwidth in GB/s = 1e9 B/s, one direction.
  const double bandwidthGBps =
      params.number("bw_GBps", kMinBandwidthGBps, kMaxBandwidthGBps, 1e-9 / d.link.beta_s_per_byte);
  m.link.beta_s_per_byte = 1 / (bandwidthGBps * 1e9);
  const double gammaNs =
      params.number("gamma_ns_per_byte", 0, kMaxGammaNsPerByte, d.reduce.gamma_s_per_byte * 1e9);
  m.reduce.gamma_s_per_byte = gammaNs * 1e-9;
  return m;
}

nlohmann::json paramsJson(const model::ModelParams& m) {
  return {{"alpha_us", m.link.alpha_s * 1e6},
          {"bw_GBps", 1e-9 / m.link.beta_s_per_byte},
          {"gamma_ns_per_byte", m.reduce.gamma_s_per_byte * 1e9}};
}

nlohmann::json costJson(const model::Cost& c) {
  return {{"steps", c.steps},
          {"time_us", c.total_s() * 1e6},
          {"startup_us", c.startup_s * 1e6},
          {"bandwidth_us", c.bandwidth_s * 1e6},
          {"reduce_us", c.reduce_s * 1e6}};
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

nlohmann::json modelSizesApi(const Params& params) {
  params.allowOnly({"p", "alpha_us", "bw_GBps", "gamma_ns_per_byte", "min", "max", "dtype"});
  const int p = static_cast<int>(params.integer("p", 2, kMaxModelRanks));
  const DataType type = params.dataType("dtype", "float32");
  const model::ModelParams m = modelParams(params);
  const std::uint64_t minCount = countOf(params, "min", "8", type);
  const std::uint64_t maxCount = countOf(params, "max", "1G", type);
  if (minCount > maxCount) throw ApiError("min", "min is larger than max: need min <= max");
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json crossovers = nlohmann::json::array();
  std::string previous;
  std::uint64_t previousCount = 0;
  const std::uint64_t e = dataTypeSize(type);
  for (std::uint64_t count : geometricSizes(minCount, maxCount, 2)) {
    nlohmann::json algorithms = nlohmann::json::array();
    for (const std::string& name : model::modelledAlgorithms()) {
      schedule::AlgorithmSpec spec;
      spec.name = name;
      nlohmann::json c = costJson(model::predictAllReduce(spec, p, count, type, m));
      c["algorithm"] = name;
      algorithms.push_back(c);
    }
    const std::string fastest = model::fastestAlgorithm(p, count, type, m);
    if (!previous.empty() && fastest != previous) {
      const std::uint64_t at = model::crossoverCount(p, previousCount, count, type, m, previous);
      crossovers.push_back({{"from", previous},
                            {"to", model::fastestAlgorithm(p, at, type, m)},
                            {"size_bytes", at * e}});
    }
    previous = fastest;
    previousCount = count;
    rows.push_back({{"size_bytes", count * e}, {"fastest", fastest}, {"algorithms", algorithms}});
  }
  return {{"p", p},
          {"dtype", dataTypeName(type)},
          {"params", paramsJson(m)},
          {"algorithms", model::modelledAlgorithms()},
          {"rows", rows},
          {"crossovers", crossovers}};
}

nlohmann::json modelRanksApi(const Params& params) {
  params.allowOnly({"size", "max_p", "alpha_us", "bw_GBps", "gamma_ns_per_byte", "dtype"});
  const DataType type = params.dataType("dtype", "float32");
  const model::ModelParams m = modelParams(params);
  const std::uint64_t count = countOf(params, "size", "1M", type);
  const int maxP = static_cast<int>(params.integer("max_p", 2, kMaxModelRanks, 64));
  const double bytes = static_cast<double>(count * dataTypeSize(type));
  schedule::AlgorithmSpec ring;
  ring.name = "ring";
  nlohmann::json rows = nlohmann::json::array();
  for (int p = 2; p <= maxP; ++p) {
    nlohmann::json c = costJson(model::predictAllReduce(ring, p, count, type, m));
    c["p"] = p;
    rows.push_back(c);
  }
  return {{"algorithm", "ring"},
          {"size_bytes", count * dataTypeSize(type)},
          {"dtype", dataTypeName(type)},
          {"params", paramsJson(m)},
          // The bandwidth term 2(p-1)/p n beta tends to 2 n beta: it never shrinks with p.
          {"limit_2n_beta_us", 2 * bytes * m.link.beta_s_per_byte * 1e6},
          {"rows", rows}};
}

}  // namespace ringlab::lab
