#include "ringlab/io/timeline_files.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/plan/chrome_trace.hpp"
#include "ringlab/plan/timeline_format.hpp"

namespace ringlab::io {

namespace {

// Drops, as it is parsed, every trace event the timeline does not read (most of a trace).
bool keepTimelineEvents(int /*depth*/, nlohmann::json::parse_event_t event,
                        nlohmann::json& parsed) {
  return event != nlohmann::json::parse_event_t::object_end || !parsed.contains("ph") ||
         plan::isTimelineEvent(parsed);
}

}  // namespace

plan::Timeline loadTimeline(const TimelineSource& s, const TimelineLabels& labels) {
  if (s.timeline.empty() == s.trace.empty()) {
    throwInvalid("give one of " + labels.timeline + " (ringlab's CSV/JSON) or " + labels.trace +
                 " (torch.profiler Chrome trace, with " + labels.params + ")");
  }
  if (!s.timeline.empty()) {
    return plan::parseTimeline(readTextFile(s.timeline, "timeline", kTimelineInput), s.timeline);
  }
  if (s.params.empty()) {
    throwInvalid(labels.trace + " " + s.trace + " needs " + labels.params +
                 " (name,count,dtype per parameter in model.parameters() order)");
  }
  return plan::timelineFromChromeTrace(
      readJsonFile(s.trace, "trace", kTraceInput, keepTimelineEvents),
      plan::parametersFromCsv(readTextFile(s.params, "parameters", kParametersInput), s.params),
      s.trace);
}

void writeTimelineFile(const plan::Timeline& timeline, const std::string& path,
                       std::string_view what) {
  writeTextFile(path, plan::toJson(timeline).dump(1) + "\n", what);
}

}  // namespace ringlab::io
