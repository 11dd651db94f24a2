// POST /api/record: panel 3's measured overlay, read by the one record reader the CLI's compare
// and plan --measured use (measure::parseRecord), so the page accepts what they accept
// (`ringlab bench --json` files and nccl-tests all_reduce_perf logs) and refuses what they
// refuse, with the same message.
#include "api.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/measure/record.hpp"

namespace ringlab::lab {

nlohmann::json recordApi(const std::string& body, const Params& params) {
  params.allowOnly({"name"});
  const std::string name = params.text("name", "uploaded file");
  try {
    nlohmann::json record = measure::toJson(measure::parseRecord(body, name));
    record["valid"] = true;
    return record;
  } catch (const Error& e) {
    // A file the reader refuses is an answer to show beside the field, not a bad request.
    if (e.code() != ErrorCode::InvalidArgument) throw;
    return {{"valid", false}, {"error", e.what()}};
  }
}

}  // namespace ringlab::lab
