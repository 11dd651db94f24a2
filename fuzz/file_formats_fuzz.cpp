// libFuzzer target over every file format ringlab reads: nccl-tests logs (text and -J JSON), OSU
// osu_allreduce output, bench records, profiles, decision tables, timelines, NCCL topology XML,
// ringlab topology JSON and torch.profiler traces with their parameter list. One binary; the
// format is chosen by RINGLAB_FUZZ_FORMAT (fuzz/fuzz.cmake runs one fuzzer per format, each over
// tests/data's real files of it). A reader may refuse its input only with ringlab::Error, whose
// message must be one printable line; anything else (a crash, a sanitizer report, another
// exception, a hang past -timeout) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "ringlab/core/error.hpp"
#include "ringlab/core/json_text.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/model/decision_table.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/plan/chrome_trace.hpp"
#include "ringlab/plan/timeline_format.hpp"
#include "ringlab/record/run_logs.hpp"
#include "ringlab/topo/file_format.hpp"
#include "ringlab/topo/nccl_xml.hpp"

namespace {

using namespace ringlab;

// A torch trace input is its parameter list (CSV), a form feed, then the trace (JSON).
void readTrace(const std::string& text) {
  const std::size_t split = text.find('\f');
  const std::string params = split == std::string::npos ? "" : text.substr(0, split);
  const std::string trace = split == std::string::npos ? text : text.substr(split + 1);
  plan::timelineFromChromeTrace(parseJsonText(trace, "trace"),
                                plan::parametersFromCsv(params, "params"), "trace");
}

struct Format {
  const char* name;
  void (*read)(const std::string& text);
};

const Format kFormats[] = {
    {"logs", [](const std::string& t) { record::parseRuns(t, "log", {}); }},
    {"record", [](const std::string& t) { record::parseOneRun(t, "record"); }},
    {"profile",
     [](const std::string& t) { model::profileFromJson(parseJsonText(t, "profile"), "profile"); }},
    {"decision_table",
     [](const std::string& t) {
       model::decisionTableFromJson(parseJsonText(t, "table"), "table");
     }},
    {"timeline", [](const std::string& t) { plan::parseTimeline(t, "timeline"); }},
    {"nccl_xml",
     [](const std::string& t) {
       topo::importNcclTopology(t, "xml", 2, 2e-6, {});
       topo::importNcclTopology(t, "xml", 1, 2e-6, {.linksPerGpu = 12});
     }},
    {"topology", [](const std::string& t) { topo::parseTopologyJson(t, "topology"); }},
    {"torch_trace", readTrace},
};

const Format* chosen = nullptr;

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "%s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* name = std::getenv("RINGLAB_FUZZ_FORMAT");
  for (const Format& f : kFormats)
    if (name && std::strcmp(name, f.name) == 0) chosen = &f;
  if (!chosen) {
    std::fprintf(stderr, "set RINGLAB_FUZZ_FORMAT to one of:");
    for (const Format& f : kFormats) std::fprintf(stderr, " %s", f.name);
    std::fprintf(stderr, "\n");
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    chosen->read(text);
  } catch (const ringlab::Error& e) {
    // A refusal is one line, and nothing in it reaches the terminal raw.
    for (const char* c = e.what(); *c; ++c) {
      // A tab, kept by printableLines as the blank it is in logs and CSV, is the one exception.
      const auto byte = static_cast<unsigned char>(*c);
      if ((byte < 0x20 && byte != '\t') || byte == 0x7f) {
        std::fprintf(stderr, "%s\n", ringlab::printableText(e.what()).c_str());
        finding("a refusal holds a control character or a second line");
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    finding("a reader threw something other than ringlab::Error");
  }
  return 0;
}
