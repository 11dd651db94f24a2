// POST /api/record: panel 3's files. Measurements are read once, by the one record reader the
// CLI's compare and plan --measured use (record::parseOneRun, behind parseRecord), so the page
// accepts what they accept (`ringlab bench --json` files and nccl-tests all_reduce_perf logs) and
// refuses what they refuse, with the same message; a `ringlab calibrate` profile by the reader
// behind --profile. A log that ran on GPUs is judged as `ringlab compare` judges it
// (record::compareGpu), against the GPU system the page's field names: the alpha-beta model prices
// CPU ranks, not GPUs.
#include <algorithm>
#include <optional>
#include <string_view>

#include "api.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/io/gpu_system_files.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/record/calibration.hpp"
#include "ringlab/record/gpu_comparison.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/record/run_logs.hpp"

namespace ringlab::lab {
namespace {

// How the lab's reader gives a GPU system, for the one sentence a GPU log without one gets.
constexpr const char* kHowToGiveSystem =
    "type a preset (such as dgx-h100) or the GPUs, nodes and NICs "
    "(gpu=h100,gpus=8,nodes=2,nics=8,nic=400Gb/s) in the GPU system field";

// A profile names its format first thing; anything else goes to the record reader, whose
// messages say what a measurement file lacks.
bool isProfile(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("format") && doc["format"].is_string() &&
         std::string_view(doc["format"].get_ref<const std::string&>())
             .starts_with("ringlab-profile");
}

nlohmann::json profileAnswer(const nlohmann::json& doc, const std::string& name) {
  const model::Profile profile = model::profileFromJson(doc, "file " + name);
  return {{"valid", true},
          {"kind", "profile"},
          {"profile", model::toJson(profile)},
          {"params", paramsJson(profile.params)},
          {"dtype", dataTypeName(record::kCalibrateReduceType)},
          // The p it was measured at (calibrate's job_ranks, or a one-p profile's ranks).
          {"ranks", profile.jobRanks > 0 ? nlohmann::json(profile.jobRanks) : nlohmann::json()}};
}

// The GPU system the field names, or none when it is empty. Only a spec: the lab reads no file of
// the server's. The library's message names the spec and what is valid; the field is blamed.
std::optional<gpu::GpuSystem> systemOf(const Params& params) {
  const std::string spec = params.text("system", "");
  if (spec.empty()) return std::nullopt;
  if (spec.size() > kMaxSystemSpecChars) {
    throw ApiError("system", "system: " + std::to_string(spec.size()) +
                                 " characters; a GPU system is at most " +
                                 std::to_string(kMaxSystemSpecChars));
  }
  try {
    return io::loadGpuSystem(io::GpuSystemSource{spec, "", std::nullopt});
  } catch (const Error& e) {
    throw ApiError("system", std::string("system: ") + e.what());
  }
}

// What ran a log, and its verdict against the system when one is given (else the one sentence
// that says what to give). A system that cannot hold the log's p is the field's fault.
nlohmann::json gpuAnswer(const record::LoggedRun& run, const Params& params,
                         const std::string& name) {
  nlohmann::json gpu = {{"device", run.device}, {"p", run.record.run.ranks}};
  const std::optional<gpu::GpuSystem> system = systemOf(params);
  if (!system) {
    gpu["sentence"] = record::noSystemSentence(run, kHowToGiveSystem);
    return gpu;
  }
  try {
    gpu["verdict"] = record::toJson(record::compareGpu(run, *system, name));
  } catch (const Error& e) {
    if (e.code() != ErrorCode::InvalidArgument) throw;
    throw ApiError("system", std::string("system: ") + e.what());
  }
  return gpu;
}

// Counts a JSON file's values and depth without building it, stopping at the first past a limit.
class JsonShape : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool tooLarge = false;
  bool valid = true;

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    valid = false;
    return false;
  }

 private:
  bool value() {
    tooLarge = tooLarge || ++values_ > kMaxRecordJsonValues;
    return !tooLarge;
  }
  bool open() {
    tooLarge = tooLarge || ++depth_ > kMaxRecordJsonDepth;
    return value();
  }
  bool close() {
    --depth_;
    return true;
  }
  std::size_t values_ = 0;
  std::size_t depth_ = 0;
};

// The file as a JSON tree, or null when it is not JSON (a text log), after refusing a file larger
// in values, depth or lines than the lab reads: the readers' memory grows with each.
nlohmann::json boundedJson(const std::string& body, const std::string& name) {
  JsonShape shape;
  nlohmann::json::sax_parse(body, &shape);
  if (shape.tooLarge) {
    throwInvalid(name + ": more than " + std::to_string(kMaxRecordJsonValues) +
                 " JSON values or deeper than " + std::to_string(kMaxRecordJsonDepth) +
                 " levels; the lab reads smaller files (ringlab compare reads it)");
  }
  if (shape.valid) return nlohmann::json::parse(body);
  const auto lines = static_cast<std::size_t>(std::count(body.begin(), body.end(), '\n'));
  if (lines > kMaxRecordLines) {
    throwInvalid(name + ": " + std::to_string(lines) + " lines; the lab reads logs of at most " +
                 std::to_string(kMaxRecordLines) + " (ringlab compare reads any length)");
  }
  return nullptr;
}

}  // namespace

nlohmann::json recordApi(const std::string& body, const Params& params) {
  params.allowOnly({"name", "system"});
  const std::string name = params.text("name", "uploaded file");
  try {
    // The tree lives only for this test: the record reader builds its own.
    if (nlohmann::json doc = boundedJson(body, name); isProfile(doc)) {
      return profileAnswer(doc, name);
    }
    const record::LoggedRun run = record::parseOneRun(body, name);
    if (run.record.rows.size() > kMaxRecordRows) {
      throwInvalid(name + ": " + std::to_string(run.record.rows.size()) +
                   " sizes; the lab shows at most " + std::to_string(kMaxRecordRows) +
                   " (ringlab compare reads any number)");
    }
    nlohmann::json answer = record::toJson(run.record);
    answer["valid"] = true;
    answer["kind"] = "record";
    if (record::isGpuRun(run)) answer["gpu"] = gpuAnswer(run, params, name);
    return answer;
  } catch (const Error& e) {
    // A file the reader refuses is an answer to show beside the field, not a bad request.
    if (e.code() != ErrorCode::InvalidArgument) throw;
    return {{"valid", false}, {"error", e.what()}};
  }
}

}  // namespace ringlab::lab
