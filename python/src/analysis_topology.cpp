// Topologies: ring orders searched or shown on a placed topology (`ringlab topo search|show
// --json`), and AllReduce simulated on one (`ringlab sim --json`); a GPU system (system=) in
// place of the topology, as the CLI's --system.
#include <pybind11/stl.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "algorithm_args.hpp"
#include "analysis.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/gpu/system_topology.hpp"
#include "ringlab/io/topology_files.hpp"
#include "ringlab/topo/ring_report.hpp"
#include "ringlab/usecase/sim_run.hpp"

namespace ringlab::python {
namespace {

// On a GPU system, the rings are held against NCCL's, as many as the rings priced: `channels`,
// the rings of `order`, or NCCL's own count.
py::object rings(io::TopologySource where, const io::GpuSystemSource& system,
                 const std::string& size, int channels, const std::string& order, bool search) {
  const std::optional<gpu::GpuSystem> s = systemAsTopology(system, where);
  std::optional<topo::ReferenceRings> nccl;
  if (s) {
    const int k = channels > 0    ? channels
                  : order.empty() ? gpu::ncclRingChannels(*s)
                                  : static_cast<int>(std::ranges::count(order, '|')) + 1;
    if (order.empty()) channels = k;
    nccl = gpu::ncclReferenceRings(*s, k);
  }
  const io::PlacedTopology placed = io::loadTopology(where);
  const std::uint64_t bytes = parseSize(size);
  if (search && bytes == 0) throwInvalid("size 0: the search prices a message; give one > 0");
  const topo::RingReport report = topo::reportRings(
      *placed.topology, *placed.placement,
      {placed.topologyText(), placed.placementText(), placed.placement->ranks(), bytes}, channels,
      order, !search, {}, nccl, {.order = "order", .channels = "channels", .size = "size"});
  return toPython(topo::ringReportJson(report, *placed.topology));
}

// On a GPU system without an algorithm: multi_ring on NCCL's rings (`channels` of them, or NCCL's
// count), as `ringlab sim --system` runs; otherwise the algorithm given, ring by default.
py::object simulate(io::TopologySource where, const io::GpuSystemSource& system,
                    const std::optional<AlgorithmArgs>& algorithm, std::optional<int> channels,
                    const std::string& minBytes, const std::string& maxBytes,
                    std::uint64_t stepFactor, const std::string& stepBytes,
                    const std::string& dtype, const std::string& op,
                    const std::string& reduceBandwidth, const std::string& maxMemory, bool search) {
  const std::uint64_t max = parseSize(maxBytes);
  const std::uint64_t step = stepBytes.empty() ? 0 : parseSize(stepBytes);
  if (!stepBytes.empty() && step == 0) throwInvalid("step_bytes 0: give a step > 0, or none");
  const std::optional<gpu::GpuSystem> s = systemAsTopology(system, where);
  std::function<schedule::AlgorithmSpec(int)> algorithmFor;
  if (s && !algorithm) {
    algorithmFor = [spec = gpu::ncclMultiRing(*s, channels.value_or(0))](int) { return spec; };
  } else {
    AlgorithmArgs args = algorithm.value_or(AlgorithmArgs{});
    if (channels) args.channels = *channels;
    algorithmFor = [args](int p) { return args.spec(p); };
  }
  const usecase::SimRequest request{
      .where = where,
      .algorithm = algorithmFor,
      .sizes =
          sizeSweep(parseSize(minBytes), max, checkedStepFactor(stepFactor, "step_factor"), step),
      .maxBytes = max,
      .type = parseDataType(dtype),
      .op = parseReduceOp(op),
      .gammaSPerByte = reduceBandwidth.empty()
                           ? std::nullopt
                           : std::optional<double>(parseSecondsPerByte(reduceBandwidth)),
      .reductionGiven = reduceBandwidth,
      .maxMemoryBytes = parseSize(maxMemory),
      .maxMemoryWhat = "max_memory",
      .search = search};
  usecase::SimOutcome out;
  {
    py::gil_scoped_release released;  // large sweeps take seconds; other threads may run
    out = usecase::simulateRun(request, [](const record::SimRun&) {}, {});
  }
  return toPython(record::simRecordJson(out.run, out.rows));
}

}  // namespace

void bindTopologyAnalysis(py::module_& module) {
  py::class_<io::TopologySource>(module, "TopologySource",
                                 "where the topology comes from, as the CLI's --topo, "
                                 "--topo-file, --nccl-topo, --nccl-nodes, --placement, -p")
      .def(py::init([] {
        io::TopologySource where;
        where.labels = {
            .spec = "topo", .file = "topo_file", .ncclFile = "nccl_topo", .placement = "placement"};
        return where;
      }))
      // The spec as the user writes it, parsed here: its errors name topo=.
      .def_property(
          "topo",
          [](const io::TopologySource& where) {
            return where.generated ? where.generated->text : std::string();
          },
          [](io::TopologySource& where, const std::string& text) {
            if (text.empty())
              where.generated.reset();
            else
              where.generated = topo::parseTopologySpec(text, where.labels.spec);
          })
      .def_readwrite("topo_file", &io::TopologySource::file)
      .def_readwrite("nccl_topo", &io::TopologySource::ncclFile)
      .def_readwrite("nccl_nodes", &io::TopologySource::ncclNodes)
      .def_readwrite("placement", &io::TopologySource::placement)
      .def_readwrite("ranks", &io::TopologySource::ranks);
  module.def("rings", &rings, py::arg("where"), py::arg("system"), py::arg("size"),
             py::arg("channels"), py::arg("order"), py::arg("search"));
  module.def("simulate", &simulate, py::arg("where"), py::arg("system"), py::arg("algorithm"),
             py::arg("channels"), py::arg("min_bytes"), py::arg("max_bytes"),
             py::arg("step_factor"), py::arg("step_bytes"), py::arg("dtype"), py::arg("op"),
             py::arg("reduce_bw"), py::arg("max_memory"), py::arg("search"));
}

}  // namespace ringlab::python
