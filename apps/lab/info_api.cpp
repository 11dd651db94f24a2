// GET /api/info: what the page needs before its first request (limits and model defaults), so
// the numbers it states next to its fields are the server's own.
#include "api.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/report/chart.hpp"
#include "ringlab/version.hpp"

namespace ringlab::lab {

nlohmann::json infoApi(const Params& params) {
  params.allowOnly({});
  // The colours report::chartSvg gives the algorithms: the lab and the CLI's pictures agree.
  nlohmann::json palette = nlohmann::json::object();
  for (const std::string& name : model::algorithmNames())
    palette[name] = report::algorithmColour(name);
  return {{"version", version()},
          {"limits",
           {{"max_modulus", kMaxModulus},
            {"min_schedule_p", kMinScheduleRanks},
            {"max_schedule_p", kMaxScheduleRanks},
            {"max_model_p", kMaxModelRanks},
            {"max_bytes", kMaxBytes}}},
          {"model_defaults", paramsJson(model::defaultProfile().params)},
          {"modelled_algorithms", model::candidateAlgorithms()},
          {"palette", palette}};
}

}  // namespace ringlab::lab
