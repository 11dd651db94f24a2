#include "ringlab/plan/chrome_trace.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/model/fit.hpp"

namespace ringlab::plan {

namespace {

constexpr const char* kAccumulateGrad = "torch::autograd::AccumulateGrad";
constexpr const char* kEvaluatePrefix = "autograd::engine::evaluate_function";

struct Event {
  double ts_us = 0, end_us = 0;
  long long elements = -1;  // from "Input Dims", -1 when absent
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

}  // namespace

bool isTimelineEvent(const nlohmann::json& e) {
  if (!e.is_object() || e.value("ph", "") != "X" || !e.contains("name") || !e["name"].is_string())
    return false;
  if (!e.contains("ts") || !e["ts"].is_number()) return false;
  const std::string& name = e["name"].get_ref<const std::string&>();
  return name == kAccumulateGrad || name.rfind(kEvaluatePrefix, 0) == 0;
}

Timeline timelineFromChromeTrace(const nlohmann::json& trace,
                                 const std::vector<ParameterInfo>& params,
                                 const std::string& source) {
  const nlohmann::json* events = &trace;
  if (trace.is_object() && trace.contains("traceEvents")) events = &trace["traceEvents"];
  if (!events->is_array()) fail(source, "not a Chrome trace (no \"traceEvents\" array)");
  if (params.empty()) fail(source, "no parameters given to map the gradients to");
  // The backward thread: the one with the most AccumulateGrad events.
  std::map<std::string, std::vector<Event>> accumulate, evaluate;
  for (const nlohmann::json& e : *events) {
    if (!isTimelineEvent(e)) continue;
    const std::string name = e["name"].get<std::string>();
    Event ev{e["ts"].get<double>(), e["ts"].get<double>() + e.value("dur", 0.0), elementsOf(e)};
    if (name == kAccumulateGrad) accumulate[threadKey(e)].push_back(ev);
    if (name.rfind(kEvaluatePrefix, 0) == 0) evaluate[threadKey(e)].push_back(ev);
  }
  if (accumulate.empty()) {
    fail(source, std::string("no \"") + kAccumulateGrad +
                     "\" events; record the backward pass with torch.profiler (CPU activity) and "
                     "export_chrome_trace");
  }
  const auto thread = std::max_element(
      accumulate.begin(), accumulate.end(),
      [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
  std::vector<Event>& acc = thread->second;
  std::vector<Event>& eval = evaluate[thread->first];
  const auto byTime = [](const Event& a, const Event& b) { return a.ts_us < b.ts_us; };
  std::sort(acc.begin(), acc.end(), byTime);
  std::sort(eval.begin(), eval.end(), byTime);
  const std::size_t p = params.size();
  if (acc.size() % p != 0) {
    fail(source,
         std::to_string(acc.size()) +
             " AccumulateGrad events on the backward thread is not a multiple of the " +
             std::to_string(p) +
             " parameters; trace whole iterations of a model whose parameters all get gradients");
  }
  // Map event position -> parameter, once, from the first group.
  std::vector<std::size_t> paramOf(p);
  std::vector<bool> used(p, false);
  for (std::size_t k = 0; k < p; ++k) {
    std::size_t chosen = p;
    const std::size_t next = p - 1 - k;  // reverse parameter order
    const long long n = acc[k].elements;
    if (!used[next] && (n < 0 || static_cast<std::uint64_t>(n) == params[next].count)) {
      chosen = next;
    } else {
      for (std::size_t q = p; q-- > 0;) {
        if (!used[q] && (n < 0 || static_cast<std::uint64_t>(n) == params[q].count)) {
          chosen = q;
          break;
        }
      }
    }
    if (chosen == p) {
      fail(source, "AccumulateGrad event " + std::to_string(k) + " (" + std::to_string(n) +
                       " elements) matches no remaining parameter");
    }
    used[chosen] = true;
    paramOf[k] = chosen;
  }
  const std::size_t groups = acc.size() / p;
  std::vector<std::vector<double>> ready(p);
  std::vector<double> ends;
  double previousEnd = -1e300;
  for (std::size_t g = 0; g < groups; ++g) {
    const Event* first = &acc[g * p];
    double start = first->ts_us;
    for (const Event& e : eval) {
      if (e.ts_us > previousEnd && e.ts_us <= first->ts_us) {
        start = e.ts_us;
        break;
      }
    }
    for (std::size_t k = 0; k < p; ++k) ready[k].push_back(acc[g * p + k].end_us - start);
    previousEnd = acc[g * p + p - 1].end_us;
    ends.push_back(previousEnd - start);
  }
  Timeline t;
  t.source = source;
  t.backwardEnd_s = model::median(ends) * 1e-6;
  for (std::size_t k = 0; k < p; ++k) {
    const ParameterInfo& info = params[paramOf[k]];
    t.tensors.push_back(
        {info.name, info.count, info.dtype, model::median(ready[k]) * 1e-6, paramOf[k]});
  }
  validate(t);
  return t;
}

std::vector<ParameterInfo> parametersFromCsv(const std::string& text, const std::string& source) {
  std::vector<ParameterInfo> out;
  bool header = false;
  std::size_t lineNo = 0;
  for (std::string line : splitList(text, '\n')) {
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
