// Gradient buckets and run records: `ringlab plan --json` on a timeline (a file, or a dict a
// Python program recorded in the same run), timelines and run records read and written.
#include <pybind11/stl.h>

#include "analysis.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/io/timeline_files.hpp"
#include "ringlab/plan/timeline_format.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/usecase/bucket_plan.hpp"

namespace ringlab::python {
namespace {

// A timeline dict (ringlab-grad-timeline/1) or a path (ringlab CSV/JSON timeline).
plan::Timeline timelineOf(const py::handle& timeline) {
  if (py::isinstance<py::str>(timeline)) {
    return io::loadTimeline({.timeline = timeline.cast<std::string>()});
  }
  return plan::timelineFromJson(fromPython(timeline), "timeline");
}

// Read back through the one reader, so that what a program hands in is checked as a file would be.
record::RunRecord recordOf(const py::handle& record) {
  if (py::isinstance<py::str>(record)) {
    const std::string path = record.cast<std::string>();
    return record::readRecord(path, "run record");
  }
  return record::recordFromJson(fromPython(record), "record");
}

// `measured`: None, a run record's path, or the record itself as a dict.
py::object planBuckets(const py::handle& timeline, int ranks, const io::ModelSource& model,
                       const py::handle& measured, bool views, const std::string& copyBandwidth,
                       const std::string& ddpCaps, const std::string& evaluate) {
  plan::Timeline recorded = timelineOf(timeline);
  if (!copyBandwidth.empty()) recorded.copyBytesPerSecond = parseBandwidth(copyBandwidth);
  usecase::BucketPlanRequest request{
      .model = model,
      .ranks = ranks,
      .views = views,
      .labels = {.model = modelKeywords(), .measured = "measured", .copyBandwidth = "copy_bw"}};
  if (!measured.is_none()) {
    const bool path = py::isinstance<py::str>(measured);
    request.measured = {recordOf(measured), path ? measured.cast<std::string>() : "record"};
  }
  if (!ddpCaps.empty()) request.options.ddpCapBytes = plan::parseDdpCaps(ddpCaps, "ddp_caps");
  if (!evaluate.empty()) request.options.evaluate = plan::parseBucketStarts(evaluate, "evaluate");
  const usecase::BucketPlan planned = usecase::planBuckets(recorded, request);
  warn(planned.priced.warnings);
  return toPython(plan::comparisonJson(planned.timeline, planned.comparison, planned.context));
}

py::object readTimeline(const std::string& path, const std::string& trace,
                        const std::string& params) {
  return toPython(plan::toJson(io::loadTimeline(
      {path, trace, params}, {.timeline = "path", .trace = "trace", .params = "params"})));
}

void writeTimeline(const py::handle& timeline, const std::string& path) {
  io::writeTimelineFile(timelineOf(timeline), path, "path");
}

}  // namespace

void bindPlanAnalysis(py::module_& module) {
  module.def("plan_buckets", &planBuckets, py::arg("timeline"), py::arg("ranks"), py::arg("model"),
             py::arg("measured"), py::arg("views"), py::arg("copy_bw"), py::arg("ddp_caps"),
             py::arg("evaluate"));
  module.def("read_timeline", &readTimeline, py::arg("path"), py::arg("trace"), py::arg("params"));
  module.def("write_timeline", &writeTimeline, py::arg("timeline"), py::arg("path"));
  module.def(
      "read_record",
      [](const py::handle& record) { return toPython(record::toJson(recordOf(record))); },
      py::arg("record"));
  module.def(
      "parse_record",
      [](const std::string& text, const std::string& name) {
        return toPython(record::toJson(record::parseRecord(text, name)));
      },
      py::arg("text"), py::arg("name"));
  module.def(
      "write_record",
      [](const py::handle& record, const std::string& path) {
        io::writeTextFile(path, record::toJson(recordOf(record)).dump(2) + "\n", "path");
      },
      py::arg("record"), py::arg("path"));
}

}  // namespace ringlab::python
