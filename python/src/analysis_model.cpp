// verify and predict: a schedule proved and counted (`ringlab verify`), and the alpha-beta-gamma
// model at one size, over a size sweep, and over p (`ringlab model [--sweep|--vs-p] --json`).
#include <pybind11/stl.h>

#include "algorithm_args.hpp"
#include "analysis.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/model_query.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/model/verify_request.hpp"
#include "ringlab/report/schedule_text.hpp"

namespace ringlab::python {
namespace {

py::dict verify(int ranks, const std::string& collectiveName, const AlgorithmArgs& algorithm,
                int offset, const std::string& size, const std::string& dtype, bool listing) {
  const model::VerifyRequest request{.ranks = ranks,
                                     .collective = schedule::parseCollective(collectiveName),
                                     .algorithm = algorithm,
                                     .offset = offset,
                                     .bytes = parseSize(size),
                                     .type = parseDataType(dtype)};
  const model::VerifiedSchedule v = model::verifySchedule(request, "size");
  const schedule::VolumeReport& volume = v.volume;
  const schedule::Verdict& verdict = v.verdict;
  std::string text;
  if (listing) {
    report::writeScheduleSteps(v.schedule, v.spec, [&](std::string_view line) { text += line; });
  }
  text += report::verdictLine(v.schedule, verdict);
  if (verdict.valid) text += report::volumeText(v.schedule, volume, request.bytes, request.type);
  py::list perRank;
  for (const schedule::RankVolume& rank : volume.perRank) {
    py::dict row;
    row["sent_bytes"] = rank.sentBytes;
    row["received_bytes"] = rank.receivedBytes;
    perRank.append(row);
  }
  py::dict result;
  result["valid"] = verdict.valid;
  result["reason"] = verdict.reason;
  result["steps"] = volume.steps;
  result["total_sent_bytes"] = volume.totalSentBytes;
  result["max_sent_bytes"] = volume.maxSentBytes;
  result["max_send_recv_bytes"] = volume.maxSendRecvBytes;
  result["per_rank"] = perRank;
  result["text"] = text;
  return result;
}

// The model query with the keyword arguments' names for its inputs.
model::ModelQuery query(model::ModelQuery::Kind kind, const std::string& dtype,
                        const io::ModelSource& source) {
  return {.kind = kind,
          .type = parseDataType(dtype),
          .params = resolveAndWarn(source).profile.params,
          .labels = {"size", "min_bytes", "max_bytes"}};
}

py::object predict(int ranks, const std::string& size, const std::string& dtype,
                   const io::ModelSource& source) {
  model::ModelQuery q = query(model::ModelQuery::Kind::Size, dtype, source);
  q.ranks = ranks;
  q.bytes = parseSize(size);
  return toPython(model::answerModelQuery(q).json);
}

py::object predictSweep(int ranks, const std::string& minBytes, const std::string& maxBytes,
                        const std::string& dtype, const io::ModelSource& source) {
  model::ModelQuery q = query(model::ModelQuery::Kind::Sweep, dtype, source);
  q.ranks = ranks;
  q.minBytes = parseSize(minBytes);
  q.maxBytes = parseSize(maxBytes);
  return toPython(model::answerModelQuery(q).json);
}

py::object predictVersusRanks(const std::vector<int>& ranks, const std::string& size,
                              const std::string& dtype, const io::ModelSource& source) {
  model::ModelQuery q = query(model::ModelQuery::Kind::VersusRanks, dtype, source);
  q.rankList = ranks;
  q.bytes = parseSize(size);
  return toPython(model::answerModelQuery(q).json);
}

}  // namespace

void warn(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    if (PyErr_WarnEx(PyExc_UserWarning, warning.c_str(), 2) != 0) throw py::error_already_set();
  }
}

const io::ModelLabels& modelKeywords() {
  static const io::ModelLabels keywords{.profile = "profile",
                                        .alpha = "alpha",
                                        .bandwidth = "bw",
                                        .gamma = "gamma",
                                        .concurrency = "concurrency",
                                        .bandwidthCounts = "bw_counts",
                                        .volume = "volume",
                                        .ranks = "ranks ="};
  return keywords;
}

io::ResolvedModel resolveAndWarn(const io::ModelSource& source) {
  io::ResolvedModel resolved = io::resolveModel(source, modelKeywords());
  warn(resolved.warnings);
  return resolved;
}

void bindModelAnalysis(py::module_& module) {
  // Typed: seconds, bytes per second, seconds per byte; None where not given.
  py::class_<io::ModelSource>(module, "ModelSource",
                              "the model's parameters: a profile, overridden value by value")
      .def_readonly("profile", &io::ModelSource::profilePath)
      .def_readonly("alpha_s", &io::ModelSource::alpha_s)
      .def_readonly("bandwidth_Bps", &io::ModelSource::bandwidth_Bps)
      .def_readonly("gamma_s_per_byte", &io::ModelSource::gamma_s_per_byte)
      .def_readonly("concurrency", &io::ModelSource::concurrency)
      .def_property_readonly(
          "bw_counts_both",
          [](const io::ModelSource& s) { return s.bandwidthCounts == io::VolumeCount::SendRecv; })
      .def_property_readonly("volume_both", [](const io::ModelSource& s) {
        return s.volume == io::VolumeCount::SendRecv;
      });
  // The one parser of the model's inputs as typed ("5us", "12.5GB/s"), its errors naming keywords.
  module.def(
      "model_source",
      [](const std::string& profile, const std::string& alpha, const std::string& bw,
         const std::string& gamma, const std::string& concurrency, const std::string& bwCounts,
         const std::string& volume) {
        return io::parseModelSource({profile, alpha, bw, gamma, concurrency, bwCounts, volume},
                                    modelKeywords());
      },
      py::arg("profile"), py::arg("alpha"), py::arg("bw"), py::arg("gamma"), py::arg("concurrency"),
      py::arg("bw_counts"), py::arg("volume"));
  module.def("verify", &verify, py::arg("ranks"), py::arg("collective"), py::arg("algorithm"),
             py::arg("offset"), py::arg("size"), py::arg("dtype"), py::arg("listing"));
  module.def("predict", &predict, py::arg("ranks"), py::arg("size"), py::arg("dtype"),
             py::arg("model"));
  module.def("predict_sweep", &predictSweep, py::arg("ranks"), py::arg("min_bytes"),
             py::arg("max_bytes"), py::arg("dtype"), py::arg("model"));
  module.def("predict_vs_p", &predictVersusRanks, py::arg("ranks"), py::arg("size"),
             py::arg("dtype"), py::arg("model"));
  module.def("algorithm_names", [] { return model::algorithmNames(); });
}

}  // namespace ringlab::python
