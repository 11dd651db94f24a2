#include "option_groups.hpp"

#include <cstdio>

#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/report/calibration.hpp"
#include "ringlab/schedule/ring_order.hpp"

namespace ringlab::cli {

void refuseEmptyValues(CLI::App& app) {
  const CLI::Validator notEmpty(
      [](std::string& value) -> std::string {
        return value.empty() ? "an empty value; give one, or leave the option out" : "";
      },
      "");
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_size_min() > 0) option->check(notEmpty);  // flags take no value
  }
  for (CLI::App* sub : app.get_subcommands({})) refuseEmptyValues(*sub);
}

namespace {

// A whole number in lo..hi, with ringlab's message and nothing in the help (CLI::Range would print
// "INT:INT in [1 - 1048576]" beside the option).
CLI::Validator inRange(long long lo, long long hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& value) -> std::string {
        try {
          std::size_t used = 0;
          const long long n = std::stoll(value, &used);
          if (used == value.size() && n >= lo && n <= hi) return "";
        } catch (const std::exception&) {
        }
        return value + ": must be a whole number in " + range;
      },
      "");
}

}  // namespace

CLI::Option* addLinks(CLI::App& app, int& links, const std::string& help) {
  return app.add_option("--links", links, help)->check(inRange(0, kMaxTableRows));
}

CLI::Option* addRanks(CLI::App& app, int& ranks, const std::string& help) {
  return app.add_option("-p,--ranks", ranks, help);
}

CLI::Option* addRanks(CLI::App& app, std::optional<int>& ranks, const std::string& help) {
  return app.add_option("-p,--ranks", ranks, help);
}

CLI::Option* addProfile(CLI::App& app, std::string& path, const std::string& help) {
  return app.add_option("--profile", path, help)->type_name("FILE");
}

CLI::Option* addProfileAnyTransport(CLI::App& app, bool& any) {
  return app.add_flag(
      "--profile-any-transport", any,
      "use a profile (or decision table) measured over another transport than this run's");
}

CLI::Option* addIterations(CLI::App& app, int& iterations, const std::string& help) {
  return app.add_option("-n,--iters", iterations, help);
}

CLI::Option* addWarmup(CLI::App& app, int& warmup, const std::string& help) {
  return app.add_option("-w,--warmup_iters", warmup, help);
}

CLI::Option* addDataType(CLI::App& app, std::string& dtype, const std::string& help,
                         const std::string& more) {
  return app.add_option("-d,--datatype", dtype,
                        help + (help.empty() ? "" : ": ") +
                            "int8 uint8 int32 uint32 int64 uint64 float16|half bfloat16 "
                            "float32|float float64|double" +
                            more);
}

CLI::Option* addSvg(CLI::App& app, std::string& path, const std::string& help) {
  return app.add_option("--svg", path, help)->type_name("FILE");
}

namespace {

// The option, its text checked by `parse` as CLI11 reads it; the error is core/units' message.
CLI::Option* addQuantity(CLI::App& app, const std::string& name, std::string& text,
                         const std::string& help, const char* typeName,
                         double (*parse)(std::string_view)) {
  const CLI::Validator check(
      [parse](std::string& value) -> std::string {
        try {
          parse(value);
          return "";
        } catch (const Error& e) {
          return e.what();
        }
      },
      "");
  return app.add_option(name, text, help)->type_name(typeName)->check(check);
}

}  // namespace

CLI::Option* addTime(CLI::App& app, const std::string& name, std::string& text,
                     const std::string& help) {
  return addQuantity(app, name, text, help, "TIME", parseSeconds);
}

CLI::Option* addBandwidth(CLI::App& app, const std::string& name, std::string& text,
                          const std::string& help) {
  return addQuantity(app, name, text, help, "BANDWIDTH", parseBandwidth);
}

CLI::Option* addPerByteCost(CLI::App& app, const std::string& name, std::string& text,
                            const std::string& help) {
  return addQuantity(app, name, text, help, "COST|RATE", parseSecondsPerByte);
}

void JsonOutput::add(CLI::App& app, const std::string& help) {
  app.add_option("--json", path, help + " (-: standard output)")->type_name("FILE");
}

void JsonOutput::printText(const std::string& text) const {
  if (toStdout()) return;
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

void JsonOutput::checkWritable() const {
  if (given() && !toStdout()) io::writeTextFile(path, "", "--json");
}

void JsonOutput::write(const std::string& json) const {
  io::writeTextOrStdout(path, json, "--json");
}

void SweepOptions::add(CLI::App& app, Fields fields) {
  app.add_option("-b,--minbytes", minBytes, "smallest size (8, 4K, 64KiB, 1M, 2G: powers of 1024)");
  app.add_option("-e,--maxbytes", maxBytes, "largest size");
  if (fields.stepFactor) {
    auto* factorOption =
        app.add_option("-f,--stepfactor", stepFactor, "multiply the size by this each step");
    app.add_option("-i,--stepbytes", stepBytes,
                   "add this many bytes each step instead (a linear sweep, nccl-tests' -i)")
        ->excludes(factorOption);
  }
  const std::string all = fields.all ? ", or all (every one, in nccl-tests' order)" : "";
  if (fields.dtype) addDataType(app, dtype, "", all);
  if (fields.op) app.add_option("-o,--op", op, "sum prod min max avg" + all);
}

std::uint64_t SweepOptions::min() const {
  return parseSize(minBytes);
}
std::uint64_t SweepOptions::max() const {
  return parseSize(maxBytes);
}

std::uint64_t SweepOptions::factor() const {
  return checkedStepFactor(stepFactor, "-f/--stepfactor");
}

std::uint64_t SweepOptions::step() const {
  if (stepBytes.empty()) return 0;
  const std::uint64_t bytes = parseSize(stepBytes);
  if (bytes == 0) throwInvalid("-i/--stepbytes " + stepBytes + ": must be at least 1 element");
  return bytes;
}

std::vector<std::uint64_t> SweepOptions::sizes() const {
  return sizeSweep(min(), max(), factor(), step());
}

DataType SweepOptions::type() const {
  if (dtype == "all")
    throwInvalid("-d all: this command takes one datatype (bench runs every one with -d all)");
  return parseDataType(dtype);
}
ReduceOp SweepOptions::reduceOp() const {
  if (op == "all") throwInvalid("-o all: this command takes one op (bench runs every one)");
  return parseReduceOp(op);
}
std::vector<DataType> SweepOptions::types() const {
  return parseDataTypes(dtype);
}
std::vector<ReduceOp> SweepOptions::reduceOps() const {
  return parseReduceOps(op);
}

void AlgorithmOptions::add(CLI::App& app) {
  app.add_option("--algo", name, "algorithm: " + model::joinedNames(model::algorithmNames()));
  auto* order = app.add_option("--ring-order", ringOrderList,
                               "ring order as a permutation of 0..p-1, e.g. 0,2,4,6,1,3,5,7");
  auto* strideOption = app.add_option("--ring-stride", ringStride,
                                      "ring order i -> i*a mod p; a must be coprime with p");
  order->excludes(strideOption);
  app.add_option("--channels", channels,
                 "multi_ring: number of rings k, each carrying 1/k of the data");
  app.add_option("--ranks-per-node", ranksPerNode,
                 "hierarchical: consecutive ranks per node; must divide p");
}

schedule::AlgorithmChoice AlgorithmOptions::choice() const {
  // The library says "needs ranks per node"; here that value is an option.
  if (name == "hierarchical" && ranksPerNode == 0) {
    throwInvalid(
        "--algo hierarchical needs --ranks-per-node N: the consecutive ranks on one node, "
        "a divisor of -p");
  }
  schedule::AlgorithmChoice choice = *this;
  if (!ringOrderList.empty()) choice.ringOrder = schedule::RingOrder::parseList(ringOrderList);
  return choice;
}

void checkRanks(int ranks) {
  if (ranks < 1 || ranks > kMaxRanks) {
    throwInvalid("p = " + std::to_string(ranks) + ": the number of ranks must be in 1.." +
                 std::to_string(kMaxRanks));
  }
}

void ModelOptions::add(CLI::App& app) {
  addProfile(app, profile, "model parameters from `ringlab calibrate`");
  addTime(app, "--alpha", alpha, "startup per message, e.g. 5us (overrides the profile)");
  addBandwidth(app, "--bw", bandwidth, "bandwidth per direction, e.g. 12.5GB/s or 100Gb/s");
  addPerByteCost(app, "--gamma", gamma,
                 "reduction cost per byte (0, 0.05ns/B) or its rate (20GB/s)");
  app.add_option("--concurrency", concurrency,
                 "transfers that progress at full speed at once on one host (0: unlimited)");
  app.add_option(
      "--bw-counts", bandwidthCounts,
      "what --bw counts: send (one direction of a full-duplex link) or send+recv (both)");
  app.add_option("--volume", volume, "the volume you divide by --bw: send or send+recv");
}

void warnIfUnstable(const model::Profile& profile, const std::string& path) {
  const std::string warning = report::unstableProfileWarning(profile, path);
  if (!warning.empty()) std::fprintf(stderr, "ringlab: %s\n", warning.c_str());
}

const io::ModelLabels& ModelOptions::labels() {
  static const io::ModelLabels flags{.profile = "--profile",
                                     .alpha = "--alpha",
                                     .bandwidth = "--bw",
                                     .gamma = "--gamma",
                                     .concurrency = "--concurrency",
                                     .bandwidthCounts = "--bw-counts",
                                     .volume = "--volume",
                                     .ranks = "-p"};
  return flags;
}

io::ResolvedModel ModelOptions::resolve() const {
  io::ResolvedModel resolved = io::resolveModel(source(), labels());
  for (const std::string& w : resolved.warnings) std::fprintf(stderr, "ringlab: %s\n", w.c_str());
  warnIfUnstable(resolved.profile, profile);
  return resolved;
}

model::SetupUse setupUse(const std::string& transport, int ranks, bool anyTransport) {
  model::SetupUse use{transport, ranks, record::currentRunInfo().host, anyTransport};
  use.labels.profile = "--profile";
  use.labels.table = "--tuned";
  use.labels.remake = [](const std::string& command, const std::string& over) {
    return "`ringlab " + command + " --transport " + over + "`";
  };
  use.labels.allowAnyTransport = "add --profile-any-transport";
  return use;
}

TopologyOptions::TopologyOptions() {
  labels = {.spec = "--topo",
            .file = "--topo-file",
            .ncclFile = "--nccl-topo",
            .placement = "--placement"};
}

void TopologyOptions::add(CLI::App& app, bool withRanks) {
  // Parsed as it is read, its errors naming --topo.
  auto* topoOption = app.add_option_function<std::string>(
      "--topo",
      [this](const std::string& text) { generated = topo::parseTopologySpec(text, labels.spec); },
      "generated topology, e.g. nodes=4,ranks=8,rails=8,intra=100GB/s,inter=25GB/s"
      "[,shape=switch|fat-tree|ring|torus] (docs/TOPOLOGY.md)");
  auto* fileOption =
      app.add_option(
             "--topo-file", file,
             "topology file: ringlab's JSON, or NCCL's XML (NCCL_TOPO_DUMP_FILE or NCCL_TOPO_FILE)")
          ->type_name("FILE");
  topoOption->excludes(fileOption);
  auto* ncclOption =
      app.add_option(
             "--nccl-topo", ncclFile,
             "NCCL topology XML (NCCL_TOPO_DUMP_FILE or NCCL_TOPO_FILE) for the node's inside")
          ->type_name("FILE");
  ncclOption->excludes(topoOption)->excludes(fileOption);
  app.add_option("--nccl-nodes", ncclNodes, "NCCL topology XML: copies of that node, on one switch")
      ->check(inRange(1, ringlab::kMaxRanks));
  app.add_option("--nccl-links", ncclDriver.linksPerGpu,
                 "NCCL topology XML whose GPUs list no NVLink (xGMI) link, left to the driver: "
                 "the links per GPU it has (to NVSwitches; RCCL: xGMI), 0 for none")
      ->check(inRange(0, 64));
  app.add_option(
      "--placement", placement,
      "where ranks sit: block, round-robin (rr), or one node name per rank: n0,n1,n0,n1");
  if (withRanks) addRanks(app, ranks, "number of ranks (default: every slot of the topology)");
}

}  // namespace ringlab::cli

namespace ringlab::cli {

void GpuSystemOptions::add(CLI::App& app, bool withNcclTopo) {
  app.add_option("--system", spec,
                 "the GPU system: a preset (--system list), a spec such as "
                 "gpu=h100,gpus=8,nics=8,nic=400Gb/s,nodes=2, or a preset with overrides "
                 "(dgx-h100,nics=4); beside --nccl-topo, spec keys only (docs/GPU.md)");
  if (withNcclTopo) {
    app.add_option("--nccl-topo", ncclFile,
                   "the GPU system from NCCL's topology XML of one node (NCCL_TOPO_DUMP_FILE or "
                   "NCCL_TOPO_FILE)")
        ->type_name("FILE");
  }
  app.add_option("--nodes", nodes, "scale the GPU system to N nodes")->check(inRange(1, 1 << 16));
}

std::optional<gpu::GpuSystem> drawSystem(const GpuSystemOptions& system, TopologyOptions& where) {
  if (!system.given()) return std::nullopt;
  if (where.given()) {
    throwInvalid("--system " + system.spec +
                 " is the topology: give it or --topo, --topo-file, --nccl-topo, not both");
  }
  const gpu::GpuSystem s = system.load();
  const int p = where.ranks;
  try {
    return io::drawAsTopology(s, where);
  } catch (const Error& e) {
    throwInvalid("-p " + std::to_string(p) + " on --system " + system.spec + ": " + e.what());
  }
}

gpu::GpuSystem GpuSystemOptions::load() const {
  try {
    return io::loadGpuSystem(*this);
  } catch (const Error& e) {
    throwInvalid(std::string(ncclFile.empty() ? "--system" : "--nccl-topo") + ": " + e.what());
  }
}

}  // namespace ringlab::cli
