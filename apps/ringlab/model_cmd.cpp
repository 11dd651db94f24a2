// `ringlab model`: what AllReduce should cost, per algorithm, from the alpha-beta-gamma model.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common_options.hpp"
#include "model_options.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/model/sweep.hpp"

namespace ringlab::cli {
namespace {

struct ModelArgs {
  int ranks = 8;
  std::string size = "1G", minBytes = "8", maxBytes = "1G", dtype = "float32";
  bool sweep = false, vsP = false, json = false;
  int maxRanks = 1024;
  ModelOptions model;
};

// The closed forms price a machine without a topology; every record says so.
constexpr const char* kModelTopology =
    "none: uniform links, every pair of ranks alike (ringlab sim prices a topology)";
constexpr const char* kModelPlacement = "none";

nlohmann::json predictionJson(const model::Prediction& p) {
  return {{"algorithm", p.algorithm},
          {"topology", kModelTopology},
          {"placement", kModelPlacement},
          {"steps", p.cost.steps},
          {"time_us", p.cost.total_s() * 1e6},
          {"startup_us", p.cost.startup_s * 1e6},
          {"bandwidth_us", p.cost.bandwidth_s * 1e6},
          {"reduce_us", p.cost.reduce_s * 1e6},
          {"bytes_per_rank",
           {{"send", p.volume.maxSentBytes},
            {"send+recv", p.volume.maxSendRecvBytes},
            {"link-hop", nullptr}}},
          {"bytes_per_rank_note", "the busiest rank; link-hop needs a topology"}};
}

void printHeader(const model::Profile& prof, const std::string& source) {
  std::printf("# %s  [%s]\n", describeModel(prof).c_str(), source.c_str());
  std::printf(
      "# time = steps x alpha + bytes x beta + reduced bytes x gamma (full duplex: a rank's "
      "sends and receives overlap)\n");
  std::printf("# topology: %s  placement: %s\n", kModelTopology, kModelPlacement);
}

int tableAtSize(const ModelArgs& a, const model::Profile& prof, const std::string& source,
                DataType type) {
  const std::uint64_t bytes = parseSize(a.size);
  const std::uint64_t count = elementCount(bytes, type, "--size");
  const auto predictions = model::predictAll(a.ranks, count, type, prof.params);
  const std::string fastest = model::fastestAlgorithm(a.ranks, count, type, prof.params);
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : predictions) {
      out.push_back(predictionJson(p));
      out.back()["fastest"] = p.algorithm == fastest;
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("# ringlab model: allreduce of %s (%llu %s) over p = %d\n", formatSize(bytes).c_str(),
              static_cast<unsigned long long>(count), dataTypeName(type), a.ranks);
  printHeader(prof, source);
  std::printf("# bytes per rank: the busiest rank, under the send and send+recv conventions\n");
  std::printf("# %-19s %6s %15s %15s %12s %13s %12s %12s\n", "algorithm", "steps", "send (B)",
              "send+recv (B)", "startup(us)", "bandwidth(us)", "reduce(us)", "time(us)");
  for (const auto& p : predictions) {
    std::printf("  %-19s %6llu %15llu %15llu %12.2f %13.2f %12.2f %12.2f%s\n", p.algorithm.c_str(),
                static_cast<unsigned long long>(p.cost.steps),
                static_cast<unsigned long long>(p.volume.maxSentBytes),
                static_cast<unsigned long long>(p.volume.maxSendRecvBytes), p.cost.startup_s * 1e6,
                p.cost.bandwidth_s * 1e6, p.cost.reduce_s * 1e6, p.cost.total_s() * 1e6,
                p.algorithm == fastest ? "  <- fastest" : "");
  }
  return 0;
}

void printSweep(const ModelArgs& a, const model::Profile& prof, const std::string& source,
                DataType type, const model::SizeSweep& sweep) {
  std::printf("# ringlab model --sweep: allreduce over p = %d, %s\n", a.ranks, dataTypeName(type));
  printHeader(prof, source);
  std::string head = fmt::format("# {:>12}", "size (B)");
  for (const auto& p : sweep.rows.front().predictions)
    head += fmt::format(" {:>19}", p.algorithm + "(us)");
  std::printf("%s  fastest\n", head.c_str());
  for (const model::SizeRow& row : sweep.rows) {
    std::string line = fmt::format("  {:>12}", row.bytes);
    for (const auto& p : row.predictions) line += fmt::format(" {:>19.2f}", p.cost.total_s() * 1e6);
    std::printf("%s  %s\n", line.c_str(), row.fastest.c_str());
  }
  std::printf("# crossovers (exact, by bisection on the element count):%s\n",
              sweep.crossovers.empty() ? " none" : "");
  for (const model::Crossover& c : sweep.crossovers) {
    std::printf("#   %s -> %s at %llu B (%llu elements)\n", c.from.c_str(), c.to.c_str(),
                static_cast<unsigned long long>(c.bytes), static_cast<unsigned long long>(c.count));
  }
}

int sweep(const ModelArgs& a, const model::Profile& prof, const std::string& source,
          DataType type) {
  const std::uint64_t minCount = elementCount(parseSize(a.minBytes), type, "-b/--minbytes");
  const std::uint64_t maxCount = elementCount(parseSize(a.maxBytes), type, "-e/--maxbytes");
  if (minCount == 0 || minCount > maxCount) {
    throwInvalid("-b/--minbytes " + a.minBytes + " and -e/--maxbytes " + a.maxBytes +
                 ": need 0 < min <= max");
  }
  const model::SizeSweep swept =
      model::sweepSizes(a.ranks, minCount, maxCount, type, prof.params, true);
  if (!a.json) {
    printSweep(a, prof, source, type, swept);
    return 0;
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const model::SizeRow& row : swept.rows) {
    nlohmann::json r = {{"size_bytes", row.bytes}, {"fastest", row.fastest}};
    for (const auto& p : row.predictions) r["algorithms"].push_back(predictionJson(p));
    rows.push_back(r);
  }
  const nlohmann::json out = {{"rows", rows}, {"crossovers", model::toJson(swept.crossovers)}};
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

int versusRanks(const ModelArgs& a, const model::Profile& prof, const std::string& source,
                DataType type) {
  const std::uint64_t bytes = parseSize(a.size);
  const std::uint64_t count = elementCount(bytes, type, "--size");
  const double limit = model::ringBandwidthLimit_s(bytes, prof.params);
  std::vector<int> ranks;
  for (int p = 2; p <= a.maxRanks; p *= 2) ranks.push_back(p);
  const std::vector<model::RanksRow> swept =
      model::ringVersusRanks(ranks, count, type, prof.params);
  nlohmann::json rows = nlohmann::json::array();
  if (!a.json) {
    std::printf("# ringlab model --vs-p: ring allreduce of %s as p grows\n",
                formatSize(bytes).c_str());
    printHeader(prof, source);
    std::printf(
        "# the bandwidth term 2(p-1)/p n beta approaches 2 n beta = %.2f us and never shrinks; "
        "the startup term 2(p-1) alpha grows linearly in p\n",
        limit * 1e6);
    std::printf("# %6s %6s %14s %15s %17s %12s\n", "p", "steps", "startup(us)", "bandwidth(us)",
                "bandwidth/limit", "time(us)");
  }
  for (const auto& [p, c] : swept) {
    rows.push_back({{"p", p},
                    {"steps", c.steps},
                    {"startup_us", c.startup_s * 1e6},
                    {"bandwidth_us", c.bandwidth_s * 1e6},
                    {"limit_2n_beta_us", limit * 1e6},
                    {"time_us", c.total_s() * 1e6}});
    if (!a.json) {
      std::printf("  %6d %6llu %14.2f %15.2f %17.4f %12.2f\n", p,
                  static_cast<unsigned long long>(c.steps), c.startup_s * 1e6, c.bandwidth_s * 1e6,
                  limit > 0 ? c.bandwidth_s / limit : 0.0, c.total_s() * 1e6);
    }
  }
  if (a.json) std::printf("%s\n", rows.dump(2).c_str());
  return 0;
}

int runModelCommand(const ModelArgs& a) {
  checkRanks(a.ranks);
  if (a.sweep && a.vsP) throwInvalid("--sweep and --vs-p: choose one");
  if (a.vsP && (a.maxRanks < 2 || a.maxRanks > kMaxRanks)) {
    throwInvalid("--max-p " + std::to_string(a.maxRanks) + ": must be in 2.." +
                 std::to_string(kMaxRanks));
  }
  const DataType type = parseDataType(a.dtype);
  std::vector<std::string> warnings;
  std::string source;
  const model::Profile prof = a.model.resolve(warnings, source);
  for (const auto& w : warnings) std::fprintf(stderr, "ringlab: %s\n", w.c_str());
  if (a.sweep) return sweep(a, prof, source, type);
  if (a.vsP) return versusRanks(a, prof, source, type);
  return tableAtSize(a, prof, source, type);
}

}  // namespace

Action addModelCommand(CLI::App& app) {
  auto args = std::make_shared<ModelArgs>();
  CLI::App* cmd =
      app.add_subcommand("model", "predict AllReduce time per algorithm (alpha-beta-gamma)");
  cmd->add_option("-p,--ranks", args->ranks, "number of ranks")->capture_default_str();
  cmd->add_option("--size", args->size, "message size per rank (8, 4K, 1M, 1G: powers of 1024)")
      ->capture_default_str();
  cmd->add_option("-d,--datatype", args->dtype, "datatype (sets the element size)")
      ->capture_default_str();
  cmd->add_flag("--sweep", args->sweep, "sweep sizes from -b to -e (x2) and find the crossovers");
  cmd->add_option("-b,--minbytes", args->minBytes, "--sweep: smallest size")->capture_default_str();
  cmd->add_option("-e,--maxbytes", args->maxBytes, "--sweep: largest size")->capture_default_str();
  cmd->add_flag("--vs-p", args->vsP, "ring terms for p = 2, 4, ... --max-p at --size");
  cmd->add_option("--max-p", args->maxRanks, "--vs-p: largest p")->capture_default_str();
  cmd->add_flag("--json", args->json, "print JSON instead of a table");
  args->model.add(*cmd);
  return [args] { return runModelCommand(*args); };
}

}  // namespace ringlab::cli
