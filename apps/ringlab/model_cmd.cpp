// `ringlab model`: what AllReduce should cost, per algorithm, from the alpha-beta-gamma model.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "option_groups.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/gpu/nccl_model.hpp"
#include "ringlab/model/model_query.hpp"
#include "ringlab/report/gpu_text.hpp"
#include "ringlab/report/model_text.hpp"

namespace ringlab::cli {
namespace {

struct ModelArgs {
  int ranks = kDefaultRanks;
  std::string size = "1G";
  bool sweep = false, vsP = false;
  JsonOutput json;
  int maxRanks = 1024;
  SweepOptions range{.maxBytes = "1G"};  // -d; and -b, -e for --sweep
  ModelOptions model;
  GpuSystemOptions system;
};

// The table of the mode asked for and its JSON document; every check comes before the first line.
struct ModelOutput {
  std::string text;
  nlohmann::json json;
};

// A GPU system's expected curve: NCCL's choice and time per size, -b to -e in steps of x4.
ModelOutput gpuModelOutput(const ModelArgs& a) {
  const gpu::NcclModel model(a.system.load());
  const std::uint64_t first = a.range.min();
  const std::uint64_t last = a.range.max();
  if (first == 0 || first > last) {
    throwInvalid("-b/--minbytes and -e/--maxbytes: need 0 < min <= max");
  }
  const std::vector<std::uint64_t> sizes = geometricSizes(first, last, 4);
  return {report::gpuCurveText(model, sizes), report::gpuCurveJson(model, sizes)};
}

ModelOutput modelOutput(const ModelArgs& a) {
  if (a.system.listing()) return {report::gpuPresetsText(), nlohmann::json::array()};
  if (a.system.given()) return gpuModelOutput(a);
  checkRanks(a.ranks);
  if (a.sweep && a.vsP) throwInvalid("--sweep and --vs-p: choose one");
  if (a.vsP && (a.maxRanks < 2 || a.maxRanks > kMaxRanks)) {
    throwInvalid("--max-p " + std::to_string(a.maxRanks) + ": must be in 2.." +
                 std::to_string(kMaxRanks));
  }
  const DataType type = a.range.type();
  const io::ResolvedModel resolved = a.model.resolve();
  const report::ModelBasis basis{resolved.profile, resolved.source};
  model::ModelQuery query{.ranks = a.ranks,
                          .type = type,
                          .params = resolved.profile.params,
                          .labels = {"--size", "-b/--minbytes", "-e/--maxbytes"}};
  if (a.sweep) {
    query.kind = model::ModelQuery::Kind::Sweep;
    query.minBytes = a.range.min();
    query.maxBytes = a.range.max();
    model::ModelAnswer answer = model::answerModelQuery(query);
    return {report::modelSweepText(basis, a.ranks, type, answer.sweep, "ringlab model --sweep"),
            std::move(answer.json)};
  }
  query.bytes = parseSize(a.size);
  if (a.vsP) {
    query.kind = model::ModelQuery::Kind::VersusRanks;
    for (int p = 2; p <= a.maxRanks; p *= 2) query.rankList.push_back(p);
    model::ModelAnswer answer = model::answerModelQuery(query);
    return {report::modelRanksText(basis, query.bytes, answer.ranks, answer.limit_s,
                                   "ringlab model --vs-p"),
            std::move(answer.json)};
  }
  model::ModelAnswer answer = model::answerModelQuery(query);
  return {report::modelSizeText(basis, a.ranks, type, answer.size), std::move(answer.json)};
}

}  // namespace

Action addModelCommand(CLI::App& app) {
  auto args = std::make_shared<ModelArgs>();
  CLI::App* cmd =
      app.add_subcommand("model", "predict AllReduce time per algorithm (alpha-beta-gamma)");
  addRanks(*cmd, args->ranks);
  cmd->add_option("--size", args->size, "message size per rank (8, 4K, 1M, 1G: powers of 1024)");
  cmd->add_flag("--sweep", args->sweep, "sweep sizes from -b to -e (x2) and find the crossovers");
  args->range.add(*cmd, {.stepFactor = false, .dtype = true, .op = false});
  cmd->add_flag("--vs-p", args->vsP, "ring terms for p = 2, 4, ... --max-p at --size");
  cmd->add_option("--max-p", args->maxRanks, "--vs-p: largest p");
  args->json.add(*cmd, "also write the predictions as JSON to this file");
  args->model.add(*cmd);
  args->system.add(*cmd, true);
  return [args] {
    args->json.checkWritable();
    const ModelOutput output = modelOutput(*args);
    args->json.printText(output.text);
    if (args->json.given()) args->json.write(output.json.dump(2) + "\n");
    return 0;
  };
}

}  // namespace ringlab::cli
