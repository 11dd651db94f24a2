// `ringlab verify`: print a schedule step by step, prove it correct, and count its volume.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "common_options.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/schedule/ring_shape.hpp"
#include "ringlab/schedule/verify.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab::cli {
namespace {

struct VerifyArgs {
  int ranks = 8;
  std::string collective = "allreduce", size = "1M", dtype = "float32";
  int offset = 0;
  AlgorithmOptions algorithm;
};

void printSteps(const schedule::Schedule& s, const schedule::AlgorithmSpec& spec) {
  std::printf("# %s %s, p = %d, ring order %s, ownership offset %d, %zu steps, %u blocks\n",
              s.algorithm.c_str(), schedule::collectiveName(s.collective), s.ranks,
              schedule::ringOrderText(spec, s.ranks).c_str(), spec.ownershipOffset, s.steps.size(),
              s.blocks);
  std::printf("# each entry: sender->receiver block, and whether the receiver reduces or copies\n");
  // One buffer per step, formatted in place: at p = 1024 this prints two million transfers.
  fmt::memory_buffer line;
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    line.clear();
    fmt::format_to(std::back_inserter(line), "step {:>3} {:<15}", k + 1, s.steps[k].phase);
    const char* separator = "";
    for (const schedule::Transfer& t : s.steps[k].transfers) {
      fmt::format_to(std::back_inserter(line), "{} {}->{} b{}", separator, t.src, t.dst,
                     t.firstBlock);
      if (t.lastBlock != t.firstBlock + 1)
        fmt::format_to(std::back_inserter(line), "..{}", t.lastBlock - 1);
      fmt::format_to(std::back_inserter(line), " {}", schedule::recvModeName(t.mode));
      separator = " |";
    }
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
}

void printVolume(const schedule::Schedule& s, const schedule::VolumeReport& v, std::uint64_t bytes,
                 DataType type) {
  const std::uint64_t count = bytes / dataTypeSize(type);
  std::printf("volume for %s of %s (%llu elements), bytes per rank:\n", formatSize(bytes).c_str(),
              dataTypeName(type), static_cast<unsigned long long>(count));
  std::printf("  %6s %14s %14s\n", "rank", "send", "send+recv");
  for (int r = 0; r < s.ranks; ++r) {
    std::printf(
        "  %6d %14llu %14llu\n", r, static_cast<unsigned long long>(v.perRank[r].sentBytes),
        static_cast<unsigned long long>(v.perRank[r].sentBytes + v.perRank[r].receivedBytes));
  }
  if (s.collective == schedule::Collective::AllReduce && s.algorithm == schedule::kRing) {
    std::printf("closed form (send convention) 2(p-1)n/p = %.1f bytes per rank\n",
                schedule::ringAllReduceSendBytes(s.ranks, static_cast<double>(bytes)));
  }
}

int runVerifyCommand(const VerifyArgs& args) {
  checkRanks(args.ranks);
  const schedule::Collective collective = schedule::parseCollective(args.collective);
  const DataType type = parseDataType(args.dtype);
  const std::uint64_t bytes = parseSize(args.size);
  elementCount(bytes, type, "--size");
  schedule::AlgorithmSpec spec = args.algorithm.resolve(args.ranks);
  spec.ownershipOffset = args.offset;
  const schedule::Schedule s = model::buildSchedule(collective, args.ranks, spec);
  // Counted before anything prints, so that a size too large to count fails cleanly.
  const schedule::VolumeReport volume = schedule::countVolume(s, bytes / dataTypeSize(type), type);
  printSteps(s, spec);
  const schedule::Verdict verdict = schedule::verify(s);
  if (!verdict.valid) {
    std::printf("verdict: INVALID: %s\n", verdict.reason.c_str());
    return 1;
  }
  std::printf("verdict: valid: every %s element is reduced over all %d ranks exactly once\n",
              collective == schedule::Collective::ReduceScatter ? "owned" : "rank's", s.ranks);
  printVolume(s, volume, bytes, type);
  return 0;
}

}  // namespace

Action addVerifyCommand(CLI::App& app) {
  auto args = std::make_shared<VerifyArgs>();
  CLI::App* cmd =
      app.add_subcommand("verify", "print a schedule step by step and prove it correct");
  cmd->add_option("-p,--ranks", args->ranks, "number of ranks")->capture_default_str();
  cmd->add_option("--collective", args->collective, "allreduce, reduce_scatter or allgather")
      ->capture_default_str();
  cmd->add_option("--offset", args->offset, "ring: chunk-ownership offset")->capture_default_str();
  cmd->add_option("--size", args->size, "buffer size for the volume count")->capture_default_str();
  cmd->add_option("-d,--datatype", args->dtype, "datatype for the volume count")
      ->capture_default_str();
  args->algorithm.add(*cmd);
  return [args] { return runVerifyCommand(*args); };
}

}  // namespace ringlab::cli
