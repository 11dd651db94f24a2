#pragma once
// The options that commands share, each declared once (CLI11) and turned into the library's own
// structures; the commands add only what is theirs. The vocabulary is docs/cli.md's table.
//   addRanks, addProfile, addIterations, addWarmup, addDataType, addSvg, addTime, addBandwidth:
//                     one flag each (-p, --profile, -n, -w, -d, --svg; quantities with units)
//   JsonOutput        --json FILE, "-" for standard output
//   SweepOptions      -b -e -f|-i -d -o: the size sweep, with nccl-tests' letters
//   AlgorithmOptions  --algo --ring-order|--ring-stride --channels --ranks-per-node
//   ModelOptions      --profile --alpha --bw --gamma --concurrency --bw-counts --volume
//   TopologyOptions   --topo|--topo-file|--nccl-topo --nccl-nodes --placement [-p]
//   GpuSystemOptions  --system SPEC|PRESET|list [--nccl-topo FILE] --nodes N
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce_op.hpp"
#include "ringlab/io/gpu_system_files.hpp"
#include "ringlab/io/model_files.hpp"
#include "ringlab/io/topology_files.hpp"
#include "ringlab/model/setup_use.hpp"
#include "ringlab/schedule/algorithm_choice.hpp"

namespace ringlab::cli {

// Every option of `app` and its subcommands that takes a value refuses an empty one (`--json ''`,
// `--ring-order ''`, `--alpha ''`), which would otherwise read as "not given". Called once, after
// every command has declared its options.
void refuseEmptyValues(CLI::App& app);

// The row count of a --links table: 0..kMaxTableRows.
inline constexpr int kMaxTableRows = 1 << 20;
CLI::Option* addLinks(CLI::App& app, int& links, const std::string& help);

// -p,--ranks N. Where p is free its default is kDefaultRanks; where a topology is given it is every
// slot of the topology (TopologyOptions).
inline constexpr int kDefaultRanks = 4;
CLI::Option* addRanks(CLI::App& app, int& ranks, const std::string& help = "number of ranks");
// The same where p is optional (compare: only for logs that do not say it).
CLI::Option* addRanks(CLI::App& app, std::optional<int>& ranks, const std::string& help);

// --profile FILE: a profile from `ringlab calibrate`.
CLI::Option* addProfile(CLI::App& app, std::string& path, const std::string& help);
// --profile-any-transport: use a profile or decision table measured over another transport than
// the run's (model::checkSetupUse refuses one otherwise).
CLI::Option* addProfileAnyTransport(CLI::App& app, bool& any);

// -n,--iters N and -w,--warmup_iters N, nccl-tests' letters.
CLI::Option* addIterations(CLI::App& app, int& iterations, const std::string& help);
CLI::Option* addWarmup(CLI::App& app, int& warmup, const std::string& help);

// -d,--datatype NAME; `more` follows the list of names (e.g. ", or all").
CLI::Option* addDataType(CLI::App& app, std::string& dtype, const std::string& help = "",
                         const std::string& more = "");

// --svg FILE: the command's picture.
CLI::Option* addSvg(CLI::App& app, std::string& path, const std::string& help);

// Quantities with units (core/units): the text is checked as CLI11 reads it, so that a bare
// number is refused with the accepted forms before anything runs ("--alpha: 5: a time needs a
// unit, e.g. 5us, 5ms, 5s"); the command parses it with the same function where it uses it.
CLI::Option* addTime(CLI::App& app, const std::string& name, std::string& text,
                     const std::string& help);
CLI::Option* addBandwidth(CLI::App& app, const std::string& name, std::string& text,
                          const std::string& help);
CLI::Option* addPerByteCost(CLI::App& app, const std::string& name, std::string& text,
                            const std::string& help);

// --json FILE: the command's machine output; "-" is standard output, which then holds the JSON
// alone (the text is not printed), so that it can be piped.
struct JsonOutput {
  std::string path;  // empty: not asked for
  void add(CLI::App& app, const std::string& help);
  bool given() const { return !path.empty(); }
  bool toStdout() const { return path == "-"; }
  // Prints (and flushes) the command's text on standard output, unless the JSON takes it.
  void printText(const std::string& text) const;
  // Refuses an unwritable file before minutes of measuring, not after (the file is emptied).
  void checkWritable() const;
  void write(const std::string& json) const;
};

struct SweepOptions {
  std::string minBytes = "8", maxBytes = "64M", dtype = "float32", op = "sum";
  std::string stepBytes;     // -i: empty for a geometric sweep
  long long stepFactor = 2;  // signed, so that a negative value is reported, not wrapped

  // Which of them the command takes (-i comes with -f); each is declared with the defaults set
  // above. `all`: -d all and -o all run every datatype and op (nccl-tests' meaning).
  struct Fields {
    bool stepFactor = true, dtype = true, op = true, all = false;
  };
  void add(CLI::App& app, Fields fields);
  void add(CLI::App& app) { add(app, Fields{}); }

  // Sets a library configuration's minBytes, maxBytes, stepFactor, stepBytes, and its types and
  // ops (a configuration that runs several, which takes -d all) or its type and op.
  template <typename Config>
  void fill(Config& config) const {
    config.minBytes = min();
    config.maxBytes = max();
    config.stepFactor = factor();
    config.stepBytes = step();
    if constexpr (requires { config.types; }) {
      config.types = types();
      config.ops = reduceOps();
    } else {
      config.type = type();
      config.op = reduceOp();
    }
  }

  std::uint64_t min() const;
  std::uint64_t max() const;
  std::uint64_t factor() const;  // throws InvalidArgument below 2
  std::uint64_t step() const;    // -i, 0 when not given; throws InvalidArgument for 0
  std::vector<std::uint64_t> sizes() const;
  DataType type() const;  // one datatype; "all" is refused
  ReduceOp reduceOp() const;
  std::vector<DataType> types() const;  // "all": every one, in nccl-tests' order
  std::vector<ReduceOp> reduceOps() const;
};

// --algo NAME, --ring-order LIST | --ring-stride A, --channels K, --ranks-per-node N: the
// library's AlgorithmChoice, resolved against p into an AlgorithmSpec (model::buildSchedule then
// rejects options the algorithm does not take). A --ring-stride of 0 is an error, not "identity".
struct AlgorithmOptions : schedule::AlgorithmChoice {
  std::string ringOrderList;  // --ring-order as typed; its numbers become ringOrder
  void add(CLI::App& app);
  schedule::AlgorithmChoice choice() const;  // with --ring-order's numbers
  schedule::AlgorithmSpec resolve(int ranks) const { return choice().spec(ranks); }
};

// Throws InvalidArgument unless p is in 1..kMaxRanks.
inline constexpr int kMaxRanks = 1024;
void checkRanks(int ranks);

using io::readDecisionTable;
using io::readProfile;

// On stderr, "ringlab: warning: profile p.json is UNSTABLE ..." where calibrate flagged it.
void warnIfUnstable(const model::Profile& profile, const std::string& path);

// The model's inputs as typed after their flags; the library parses them, naming each flag.
struct ModelOptions : io::ModelText {
  void add(CLI::App& app);
  // The flags, as the library's labels for the model's inputs.
  static const io::ModelLabels& labels();
  io::ModelSource source() const { return io::parseModelSource(*this, labels()); }
  // The profile to use and where its parameters came from; convention warnings go to stderr.
  io::ResolvedModel resolve() const;
};

// The run's setup for model::checkProfileUse and checkDecisionTableUse, its inputs named by flag.
model::SetupUse setupUse(const std::string& transport, int ranks, bool anyTransport);

using io::PlacedTopology;

struct TopologyOptions : io::TopologySource {
  TopologyOptions();  // labels: the flags
  void add(CLI::App& app, bool withRanks = true);
  PlacedTopology load() const { return io::loadTopology(*this); }
};

// A GPU system (docs/GPU.md): --system takes a preset or spec (or, beside --nccl-topo, spec keys),
// "list" prints the presets; --nodes scales it.
struct GpuSystemOptions : io::GpuSystemSource {
  void add(CLI::App& app, bool withNcclTopo);
  bool listing() const { return spec == "list"; }
  // The library's messages name the spec or the file; these say which flag gave it.
  gpu::GpuSystem load() const;
};

// --system (and --nodes) in place of --topo, --topo-file and --nccl-topo: the GPU system, at -p
// GPUs when given, drawn as the topology the simulator and the ring search price
// (gpu::topologySpec). None when --system was not given.
std::optional<gpu::GpuSystem> drawSystem(const GpuSystemOptions& system, TopologyOptions& where);

}  // namespace ringlab::cli
