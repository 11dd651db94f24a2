#include "ringlab/plan/chrome_trace.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/model/fit.hpp"

namespace ringlab::plan {

namespace {

constexpr const char* kAccumulateGrad = "torch::autograd::AccumulateGrad";
constexpr const char* kEvaluatePrefix = "autograd::engine::evaluate_function";
constexpr const char* kRecordInstead =
    "record the trace with ringlab.torch.timeline.mark_gradients(model) active (as "
    "tools/record_grad_timeline.py does when it writes a trace), which names each gradient in the "
    "trace";

struct Event {
  double ts_us = 0, end_us = 0;
  std::string thread;
  std::string label;        // a marker's parameter name
  long long elements = -1;  // from "Input Dims", -1 when absent
};

// One iteration's backward: per parameter (index into the parameter list) its ready time, in the
// order the gradients became ready.
struct Ready {
  std::size_t param = 0;
  double at_us = 0;
};
struct Group {
  std::vector<Ready> ready;
  std::string thread;
};

struct Scan {
  std::vector<Event> markers;
  std::map<std::string, std::vector<Event>> accumulate, evaluate;  // by thread
};

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throwInvalid("trace " + source + ": " + what);
}

std::string threadKey(const nlohmann::json& e) {
  return e.value("pid", nlohmann::json()).dump() + "/" + e.value("tid", nlohmann::json()).dump();
}

long long elementsOf(const nlohmann::json& e) {
  if (!e.contains("args") || !e["args"].is_object() || !e["args"].contains("Input Dims")) return -1;
  const nlohmann::json& dims = e["args"]["Input Dims"];
  if (!dims.is_array() || dims.empty() || !dims[0].is_array()) return -1;
  long long n = 1;
  for (const auto& d : dims[0]) {
    if (!d.is_number_integer()) return -1;
    n *= d.get<long long>();
  }
  return n;
}

Scan scan(const nlohmann::json& events) {
  Scan s;
  const std::string marker = kGradReadyMarker;
  for (const nlohmann::json& e : events) {
    if (!isTimelineEvent(e)) continue;
    const std::string name = e["name"].get<std::string>();
    const double ts = e["ts"].get<double>();
    const double dur = e.contains("dur") && e["dur"].is_number() ? e["dur"].get<double>() : 0.0;
    Event ev{ts, ts + dur, threadKey(e), "", elementsOf(e)};
    if (name == kAccumulateGrad) s.accumulate[ev.thread].push_back(ev);
    if (name.rfind(kEvaluatePrefix, 0) == 0) s.evaluate[ev.thread].push_back(ev);
    if (name.rfind(marker, 0) == 0) {
      ev.label = name.substr(marker.size());
      s.markers.push_back(std::move(ev));
    }
  }
  const auto byTime = [](const Event& a, const Event& b) { return a.ts_us < b.ts_us; };
  std::stable_sort(s.markers.begin(), s.markers.end(), byTime);
  for (auto* m : {&s.accumulate, &s.evaluate})
    for (auto& [thread, list] : *m) std::stable_sort(list.begin(), list.end(), byTime);
  return s;
}

// Marked traces: the g-th marker of each parameter belongs to iteration g; ready at the marker.
std::vector<Group> groupsFromMarkers(const std::vector<Event>& markers,
                                     const std::vector<ParameterInfo>& params,
                                     const std::string& source) {
  std::map<std::string, std::size_t> index;
  for (std::size_t q = 0; q < params.size(); ++q) index[params[q].name] = q;
  std::vector<std::size_t> seen(params.size(), 0);
  std::vector<Group> groups;
  for (const Event& m : markers) {
    const auto it = index.find(m.label);
    if (it == index.end())
      fail(source,
           "gradient '" + m.label + "' is marked in the trace but not in the parameter list");
    const std::size_t g = seen[it->second]++;
    if (groups.size() <= g) groups.push_back({{}, m.thread});
    groups[g].ready.push_back({it->second, m.ts_us});
  }
  for (std::size_t q = 0; q < params.size(); ++q) {
    if (seen[q] != groups.size()) {
      fail(source, "parameter '" + params[q].name + "' has " + std::to_string(seen[q]) +
                       " marked gradients, others " + std::to_string(groups.size()) +
                       "; trace whole iterations of a model whose parameters all get gradients");
    }
  }
  return groups;
}

// The parameters each element count fits, in parameter order; a missing shape (-1) fits all.
// Built once per trace, so that matching a gradient is a lookup, not a pass over the parameters.
class ParametersBySize {
 public:
  explicit ParametersBySize(const std::vector<ParameterInfo>& params) : all_(params.size()) {
    std::iota(all_.begin(), all_.end(), 0);
    for (std::size_t q = 0; q < params.size(); ++q) bySize_[params[q].count].push_back(q);
  }
  const std::vector<std::size_t>& fitting(long long elements) const {
    if (elements < 0) return all_;
    const auto it = bySize_.find(static_cast<std::uint64_t>(elements));
    return it == bySize_.end() ? none_ : it->second;
  }

 private:
  std::vector<std::size_t> all_, none_;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> bySize_;
};

// What the trace cannot tell: ready positions whose element count (or missing shape) fits several
// parameters, named with the candidates.
std::string ambiguity(const std::vector<Event>& group, const std::vector<ParameterInfo>& params,
                      const ParametersBySize& bySize) {
  std::map<long long, std::vector<std::size_t>> positions;
  for (std::size_t k = 0; k < group.size(); ++k) positions[group[k].elements].push_back(k);
  std::string out;
  constexpr std::size_t kNamesShown = 6;
  for (const auto& [n, at] : positions) {
    const std::vector<std::size_t>& fits = bySize.fitting(n);
    if (fits.size() < 2) continue;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < std::min(fits.size(), kNamesShown); ++i)
      names.push_back(params[fits[i]].name);
    if (fits.size() > kNamesShown) names.back() = "...";
    std::vector<std::string> pos;
    for (std::size_t k : at) pos.push_back(std::to_string(k));
    out += (out.empty() ? "" : "; ") + std::string("ready positions ") +
           fmt::format("{}", fmt::join(pos, ",")) +
           (n < 0 ? " (no shape)" : " (" + std::to_string(n) + " elements)") + " could be any of " +
           fmt::format("{}", fmt::join(names, ", "));
  }
  return out;
}

// Unmarked traces: consecutive runs of one AccumulateGrad per parameter on the backward thread,
// each mapped by its element count, which must name exactly one parameter.
std::vector<Group> groupsFromShapes(const std::vector<Event>& acc, const std::string& thread,
                                    const std::vector<ParameterInfo>& params,
                                    const std::string& source) {
  const std::size_t p = params.size();
  if (acc.size() % p != 0) {
    fail(source, std::to_string(acc.size()) +
                     " AccumulateGrad events on the backward thread is not a multiple of the " +
                     std::to_string(p) +
                     " parameters; trace whole iterations of a model whose parameters all get "
                     "gradients");
  }
  const ParametersBySize bySize(params);
  std::vector<Group> groups;
  for (std::size_t g = 0; g < acc.size() / p; ++g) {
    const std::vector<Event> events(acc.begin() + g * p, acc.begin() + (g + 1) * p);
    const std::string unclear = ambiguity(events, params, bySize);
    if (!unclear.empty()) {
      const bool shapes =
          std::any_of(events.begin(), events.end(), [](const Event& e) { return e.elements >= 0; });
      fail(source,
           std::string(shapes ? ""
                              : "its AccumulateGrad events carry no shapes (\"Input Dims\", "
                                "written with record_shapes=True by torch builds with "
                                "kineto), so ") +
               "the trace cannot tell which parameter each gradient is: " + unclear + "; " +
               kRecordInstead);
    }
    Group group{{}, thread};
    std::vector<bool> used(p, false);
    for (std::size_t k = 0; k < p; ++k) {
      // Past the ambiguity check, a gradient fits at most one parameter (no shape: the only one).
      const std::vector<std::size_t>& fits = bySize.fitting(events[k].elements);
      const auto q =
          std::find_if(fits.begin(), fits.end(), [&](std::size_t c) { return !used[c]; });
      if (q == fits.end()) {
        fail(source, "AccumulateGrad event " + std::to_string(g * p + k) + " (" +
                         std::to_string(events[k].elements) +
                         " elements) matches no remaining parameter");
      }
      used[*q] = true;
      group.ready.push_back({*q, events[k].end_us});
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

// Per parameter the median of its ready times, each from its iteration's start: the first
// evaluate_function event on that thread after the previous iteration's last gradient.
Timeline timelineFromGroups(const std::vector<Group>& groups, const Scan& s,
                            const std::vector<ParameterInfo>& params, const std::string& source) {
  const std::size_t p = params.size();
  std::vector<std::vector<double>> ready(p);
  std::vector<double> ends, firstSeen(p, 0);
  double previousEnd = -std::numeric_limits<double>::infinity();
  for (const Group& g : groups) {
    const double first = g.ready.front().at_us;
    double start = first;
    const auto eval = s.evaluate.find(g.thread);
    if (eval != s.evaluate.end()) {
      // The events are in time order: the first after previousEnd, if it is not after `first`.
      const auto e = std::upper_bound(eval->second.begin(), eval->second.end(), previousEnd,
                                      [](double t, const Event& event) { return t < event.ts_us; });
      if (e != eval->second.end() && e->ts_us <= first) start = e->ts_us;
    }
    for (std::size_t k = 0; k < g.ready.size(); ++k) {
      ready[g.ready[k].param].push_back(g.ready[k].at_us - start);
      if (&g == &groups.front()) firstSeen[g.ready[k].param] = static_cast<double>(k);
    }
    previousEnd = g.ready.back().at_us;
    ends.push_back(previousEnd - start);
  }
  std::vector<double> median(p);
  for (std::size_t q = 0; q < p; ++q) median[q] = model::median(ready[q]);
  std::vector<std::size_t> order(p);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return median[a] != median[b] ? median[a] < median[b] : firstSeen[a] < firstSeen[b];
  });
  Timeline t;
  t.source = source;
  t.backwardEnd_s = model::median(ends) * 1e-6;
  for (std::size_t q : order) {
    const ParameterInfo& info = params[q];
    t.tensors.push_back(
        {info.name, info.count, info.dtype, std::min(median[q] * 1e-6, t.backwardEnd_s), q});
  }
  validate(t);
  return t;
}

}  // namespace

bool isTimelineEvent(const nlohmann::json& e) {
  // Each field's type checked before it is read: a trace's "ph" may be anything.
  if (!e.is_object() || !e.contains("ph") || e["ph"] != "X" || !e.contains("name") ||
      !e["name"].is_string())
    return false;
  if (!e.contains("ts") || !e["ts"].is_number()) return false;
  const std::string& name = e["name"].get_ref<const std::string&>();
  return name == kAccumulateGrad || name.rfind(kEvaluatePrefix, 0) == 0 ||
         name.rfind(kGradReadyMarker, 0) == 0;
}

Timeline timelineFromChromeTrace(const nlohmann::json& trace,
                                 const std::vector<ParameterInfo>& params,
                                 const std::string& source) {
  const nlohmann::json* events = &trace;
  if (trace.is_object() && trace.contains("traceEvents")) events = &trace["traceEvents"];
  if (!events->is_array()) fail(source, "not a Chrome trace (no \"traceEvents\" array)");
  if (params.empty()) fail(source, "no parameters given to map the gradients to");
  const Scan s = scan(*events);
  if (!s.markers.empty())
    return timelineFromGroups(groupsFromMarkers(s.markers, params, source), s, params, source);
  if (s.accumulate.empty()) {
    fail(source, std::string("no \"") + kAccumulateGrad +
                     "\" events; record the backward pass with torch.profiler (CPU activity) and "
                     "export_chrome_trace");
  }
  // The backward thread: the one with the most AccumulateGrad events.
  const auto thread = std::max_element(
      s.accumulate.begin(), s.accumulate.end(),
      [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
  return timelineFromGroups(groupsFromShapes(thread->second, thread->first, params, source), s,
                            params, source);
}
std::vector<ParameterInfo> parametersFromCsv(const std::string& text, const std::string& source) {
  std::vector<ParameterInfo> out;
  bool header = false;
  std::size_t lineNo = 0;
  // File text enters here: a parameter's name reaches no terminal raw.
  for (std::string line : splitList(printableLines(text), '\n')) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string where = "parameters " + source + ": line " + std::to_string(lineNo) + ": ";
    if (!header) {
      if (line != "name,count,dtype") throwInvalid(where + "header must be 'name,count,dtype'");
      header = true;
      continue;
    }
    const auto c1 = line.find(','), c2 = line.rfind(',');
    if (c1 == std::string::npos || c1 == c2) throwInvalid(where + "expected name,count,dtype");
    ParameterInfo p;
    p.name = line.substr(0, c1);
    const std::string count = line.substr(c1 + 1, c2 - c1 - 1);
    p.count = static_cast<std::uint64_t>(
        parseInteger(count, where + "parameter '" + p.name + "': element count", 1,
                     std::numeric_limits<std::int64_t>::max()));
    p.dtype = parseDataType(line.substr(c2 + 1));
    out.push_back(std::move(p));
  }
  if (out.empty())
    throwInvalid("parameters " + source +
                 ": no parameters (header 'name,count,dtype' then one row each)");
  return out;
}

}  // namespace ringlab::plan
