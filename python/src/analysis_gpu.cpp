// GPU systems as NCCL runs AllReduce on them: the verdict on an nccl-tests log against the system
// it ran on (`ringlab compare --system --json`), a system's expected curve (`ringlab model --system
// --json`), and the presets.
#include <pybind11/stl.h>

#include <optional>

#include "analysis.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/gpu/nccl_model.hpp"
#include "ringlab/gpu/system_spec.hpp"
#include "ringlab/gpu/system_topology.hpp"
#include "ringlab/io/gpu_system_files.hpp"
#include "ringlab/record/gpu_comparison.hpp"
#include "ringlab/record/run_logs.hpp"
#include "ringlab/report/gpu_text.hpp"

namespace ringlab::python {
namespace {

// The keywords that describe a system, as the sentence for a GPU log given none ends.
const char* const kHowToGiveSystem =
    "pass system='dgx-h100' (ringlab.gpu_presets()), "
    "system='gpu=h100,gpus=8,nodes=2,nics=8,nic=400Gb/s' or nccl_topo=PATH";

// The library's messages name the spec or the file; this says which keyword gave it.
gpu::GpuSystem systemOf(const io::GpuSystemSource& source) {
  if (!source.given()) throwInvalid(std::string("no GPU system: ") + kHowToGiveSystem);
  try {
    return io::loadGpuSystem(source);
  } catch (const Error& e) {
    throwInvalid(std::string(source.ncclFile.empty() ? "system" : "nccl_topo") + ": " + e.what());
  }
}

// Without a system there is no verdict: a GPU log gets the CLI's one sentence in keywords, and a
// CPU log is told that only GPU logs are judged here.
[[noreturn]] void refuseWithoutSystem(const record::LoggedRun& run, const std::string& name) {
  const std::string where = run.name.empty() ? name : name + " (" + run.name + ")";
  if (record::isGpuRun(run)) {
    throwInvalid(where + ": " + record::noSystemSentence(run, kHowToGiveSystem));
  }
  throwInvalid(where + ": the log ran on " + (run.device.empty() ? "CPU ranks" : run.device) +
               ", not GPUs: compare_gpu judges GPU logs against a GPU system");
}

// One verdict per run of the file (a file may hold several runs or cases), each with its text.
py::list compareGpu(const std::string& log, const io::GpuSystemSource& where,
                    std::optional<int> ranks) {
  const std::string name = "log " + log;
  // The system first, as the CLI does: a bad one is refused whatever the log.
  const std::optional<gpu::GpuSystem> system =
      where.given() ? std::optional<gpu::GpuSystem>(systemOf(where)) : std::nullopt;
  py::list verdicts;
  for (const record::LoggedRun& run : record::readRuns(log, "log", {ranks, "ranks"})) {
    if (!system) refuseWithoutSystem(run, name);
    const record::GpuComparison comparison = record::compareGpu(run, *system, name);
    py::object verdict = toPython(record::toJson(comparison));
    verdict["text"] = report::gpuComparisonText(comparison);
    verdicts.append(verdict);
  }
  return verdicts;
}

// NCCL's choice and time per size, min..max in steps of x4 (the sizes `model --system` prints).
py::object predictGpu(const io::GpuSystemSource& where, const std::string& minBytes,
                      const std::string& maxBytes) {
  const gpu::NcclModel model(systemOf(where));
  const std::uint64_t first = parseSize(minBytes);
  const std::uint64_t last = parseSize(maxBytes);
  if (first == 0 || first > last) {
    throwInvalid("min_bytes " + minBytes + " and max_bytes " + maxBytes + ": need 0 < min <= max");
  }
  const std::vector<std::uint64_t> sizes = geometricSizes(first, last, 4);
  py::object curve = toPython(report::gpuCurveJson(model, sizes));
  curve["text"] = report::gpuCurveText(model, sizes);
  return curve;
}

py::list presets() {
  py::list out;
  for (const gpu::Preset& p : gpu::presets()) {
    py::dict preset;
    preset["key"] = p.key;
    preset["title"] = p.title;
    preset["spec"] = p.spec;
    preset["source"] = p.source;
    out.append(preset);
  }
  return out;
}

}  // namespace

std::optional<gpu::GpuSystem> systemAsTopology(const io::GpuSystemSource& system,
                                               io::TopologySource& where) {
  if (!system.given()) return std::nullopt;
  if (where.given()) {
    throwInvalid("system=" + system.spec +
                 " is the topology: give it or topo=, topo_file=, nccl_topo=, not both");
  }
  const gpu::GpuSystem s = systemOf(system);
  const int p = where.ranks;
  try {
    return io::drawAsTopology(s, where);
  } catch (const Error& e) {
    throwInvalid("ranks=" + std::to_string(p) + " on system=" + system.spec + ": " + e.what());
  }
}

void bindGpuAnalysis(py::module_& module) {
  py::class_<io::GpuSystemSource>(module, "GpuSystemSource",
                                  "the GPU system as the CLI's --system, --nccl-topo, --nodes")
      .def(py::init<>())
      .def_readwrite("system", &io::GpuSystemSource::spec)
      .def_readwrite("nccl_topo", &io::GpuSystemSource::ncclFile)
      .def_readwrite("nodes", &io::GpuSystemSource::nodes);
  module.def("compare_gpu", &compareGpu, py::arg("log"), py::arg("system"), py::arg("ranks"));
  module.def("predict_gpu", &predictGpu, py::arg("system"), py::arg("min_bytes"),
             py::arg("max_bytes"));
  module.def("gpu_presets", &presets);
}

}  // namespace ringlab::python
