// GET /api/info: what the page needs before its first request (limits and model defaults), so
// the numbers it states next to its fields are the server's own.
#include "api.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/version.hpp"

namespace ringlab::lab {

nlohmann::json infoApi(const Params& params) {
  params.allowOnly({});
  const model::ModelParams d = model::defaultProfile().params;
  return {{"version", version()},
          {"limits",
           {{"max_modulus", kMaxModulus},
            {"min_schedule_p", kMinScheduleRanks},
            {"max_schedule_p", kMaxScheduleRanks},
            {"max_model_p", kMaxModelRanks},
            {"max_bytes", kMaxBytes}}},
          {"model_defaults",
           {{"alpha_us", d.link.alpha_s * 1e6},
            {"bw_GBps", 1e-9 / d.link.beta_s_per_byte},
            {"gamma_ns_per_byte", d.reduce.gamma_s_per_byte * 1e9}}},
          {"modelled_algorithms", model::candidateAlgorithms()}};
}

}  // namespace ringlab::lab
