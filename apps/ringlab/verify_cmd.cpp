// `ringlab verify`: print a schedule step by step, prove it correct, and count its volume.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "option_groups.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/verify_request.hpp"
#include "ringlab/report/schedule_text.hpp"

namespace ringlab::cli {
namespace {

struct VerifyArgs {
  int ranks = kDefaultRanks;
  std::string collective = "allreduce", size = "1M", dtype = "float32";
  int offset = 0;
  int root = 0;
  AlgorithmOptions algorithm;
  bool algorithmGiven = false;  // else the collective's default (ring builds three of them)
};

int runVerifyCommand(const VerifyArgs& args) {
  checkRanks(args.ranks);
  const model::VerifyRequest request{.ranks = args.ranks,
                                     .collective = schedule::parseCollective(args.collective),
                                     .algorithm = args.algorithm.choice(),
                                     .algorithmNamed = args.algorithmGiven,
                                     .offset = args.offset,
                                     .root = args.root,
                                     .bytes = parseSize(args.size),
                                     .type = parseDataType(args.dtype)};
  const model::VerifiedSchedule v = model::verifySchedule(request, "--size");
  report::writeScheduleSteps(v.schedule, v.spec, [](std::string_view line) {
    std::fwrite(line.data(), 1, line.size(), stdout);
  });
  std::fputs(report::verdictLine(v.schedule, v.verdict).c_str(), stdout);
  if (!v.verdict.valid) return 1;
  std::fputs(report::volumeText(v.schedule, v.volume, request.bytes, request.type).c_str(), stdout);
  return 0;
}

}  // namespace

Action addVerifyCommand(CLI::App& app) {
  auto args = std::make_shared<VerifyArgs>();
  CLI::App* cmd =
      app.add_subcommand("verify", "print a schedule step by step and prove it correct");
  addRanks(*cmd, args->ranks);
  cmd->add_option("--collective", args->collective,
                  "allreduce, reduce_scatter, allgather, reduce, broadcast or alltoall");
  cmd->add_option("--offset", args->offset, "ring: chunk-ownership offset");
  cmd->add_option("--root", args->root, "reduce, broadcast: the root rank");
  cmd->add_option("--size", args->size, "buffer size for the volume count");
  addDataType(*cmd, args->dtype, "datatype for the volume count");
  args->algorithm.add(*cmd);
  return [args, cmd] {
    args->algorithmGiven = cmd->get_option("--algo")->count() > 0;
    return runVerifyCommand(*args);
  };
}

}  // namespace ringlab::cli
