// POST /api/record: panel 3's files. Measurements are read by the one record reader the CLI's
// compare and plan --measured use (measure::parseRecord), so the page accepts what they accept
// (`ringlab bench --json` files and nccl-tests all_reduce_perf logs) and refuses what they
// refuse, with the same message; a `ringlab calibrate` profile by the reader behind --profile.
#include <string_view>

#include "api.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/measure/calibrate.hpp"
#include "ringlab/measure/record.hpp"
#include "ringlab/model/profile.hpp"

namespace ringlab::lab {
namespace {

// A profile names its format first thing; anything else goes to the record reader, whose
// messages say what a measurement file lacks.
bool isProfile(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("format") && doc["format"].is_string() &&
         std::string_view(doc["format"].get_ref<const std::string&>())
             .starts_with("ringlab-profile");
}

nlohmann::json profileAnswer(const nlohmann::json& doc, const std::string& name) {
  const model::Profile profile = model::profileFromJson(doc, "file " + name);
  const nlohmann::json& ranks = doc.contains("ranks") ? doc["ranks"] : nlohmann::json();
  return {{"valid", true},
          {"kind", "profile"},
          {"profile", model::toJson(profile)},
          {"params", paramsJson(profile.params)},
          {"dtype", dataTypeName(measure::kCalibrateReduceType)},
          {"ranks", ranks.is_number_integer() ? ranks : nlohmann::json()}};
}

}  // namespace

nlohmann::json recordApi(const std::string& body, const Params& params) {
  params.allowOnly({"name"});
  const std::string name = params.text("name", "uploaded file");
  try {
    const nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
    if (isProfile(doc)) return profileAnswer(doc, name);
    nlohmann::json record = measure::toJson(measure::parseRecord(body, name));
    record["valid"] = true;
    record["kind"] = "record";
    return record;
  } catch (const Error& e) {
    // A file the reader refuses is an answer to show beside the field, not a bad request.
    if (e.code() != ErrorCode::InvalidArgument) throw;
    return {{"valid", false}, {"error", e.what()}};
  }
}

}  // namespace ringlab::lab
