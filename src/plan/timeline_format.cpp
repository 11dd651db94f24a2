#include "ringlab/plan/timeline_format.hpp"

#include <cmath>
#include <vector>

#include "ringlab/core/error.hpp"
#include "ringlab/core/json_text.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::plan {

namespace {

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throwInvalid("timeline " + source + ": " + what);
}

double numberField(const nlohmann::json& j, const char* key, const std::string& where,
                   const std::string& source, bool required) {
  if (!j.contains(key)) {
    if (required) fail(source, where + "missing number field \"" + key + "\"");
    return 0;
  }
  // Finite and >= 0 here; validate() holds each field to its range.
  return jsonNumber(j[key], "timeline " + source, where + key, 0, HUGE_VAL);
}

// A count as written: a whole number > 0 (a JSON negative or fraction is named, not wrapped).
std::uint64_t countValue(double v, const std::string& where, const std::string& source) {
  if (!(v >= 1) || v != std::floor(v) || v > 9.0e15) {
    fail(source, where + "element count " + formatNumber(v) + ": must be a whole number >= 1");
  }
  return static_cast<std::uint64_t>(v);
}

void setScalar(Timeline& t, const std::string& key, double v) {
  if (key == "backward_end_us")
    t.backwardEnd_s = v * 1e-6;
  else if (key == "forward_us")
    t.forward_s = v * 1e-6;
  else if (key == "optimizer_step_us")
    t.optimizerStep_s = v * 1e-6;
  else if (key == "copy_bandwidth_GBps")
    t.copyBytesPerSecond = v * 1e9;
}

// CSV cells, each trimmed of blanks (and of the \r of a Windows line end).
std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> cells = splitList(line);
  for (std::string& cell : cells) {
    const auto b = cell.find_first_not_of(" \t\r");
    const auto e = cell.find_last_not_of(" \t\r");
    cell = b == std::string::npos ? std::string() : cell.substr(b, e - b + 1);
  }
  return cells;
}

double numberCell(const std::string& text, const std::string& where, const std::string& source) {
  return parseNumber(text, "timeline " + source + ": " + where + "value");
}

// A file's param_index numbers its tensors in model.parameters() order: each below their count.
void checkParamIndices(const Timeline& t) {
  for (std::size_t i = 0; i < t.tensors.size(); ++i) {
    const GradTensor& g = t.tensors[i];
    if (g.paramIndex && *g.paramIndex >= t.tensors.size()) {
      fail(t.source, "tensor " + std::to_string(i) + " ('" + g.name + "'): param_index " +
                         std::to_string(*g.paramIndex) + ": must be in 0.." +
                         std::to_string(t.tensors.size() - 1) + " (one per tensor)");
    }
  }
}

}  // namespace

Timeline timelineFromJson(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) fail(source, "not a JSON object");
  if (!j.contains("format") || !j["format"].is_string() || j["format"] != kTimelineFormat) {
    fail(source, std::string("\"format\" must be \"") + kTimelineFormat + "\"");
  }
  Timeline t;
  t.source = source;
  t.backwardEnd_s = numberField(j, "backward_end_us", "", source, true) * 1e-6;
  for (const char* key : {"forward_us", "optimizer_step_us", "copy_bandwidth_GBps"}) {
    setScalar(t, key, numberField(j, key, "", source, false));
  }
  if (!j.contains("tensors") || !j["tensors"].is_array())
    fail(source, "missing array field \"tensors\"");
  for (std::size_t i = 0; i < j["tensors"].size(); ++i) {
    const nlohmann::json& r = j["tensors"][i];
    std::string where = "tensor " + std::to_string(i) + ": ";
    if (!r.is_object()) fail(source, where + "not an object");
    if (!r.contains("name") || !r["name"].is_string())
      fail(source, where + "missing string field \"name\"");
    GradTensor g;
    g.name = r["name"].get<std::string>();
    where = "tensor " + std::to_string(i) + " ('" + g.name + "'): ";
    if (!r.contains("count") || !r["count"].is_number())
      fail(source, where + "missing number field \"count\"");
    g.count = countValue(r["count"].get<double>(), where, source);
    if (!r.contains("dtype") || !r["dtype"].is_string())
      fail(source, where + "missing string field \"dtype\"");
    try {
      g.dtype = parseDataType(r["dtype"].get<std::string>());
    } catch (const Error& e) {
      fail(source, where + e.what());
    }
    g.ready_s = numberField(r, "ready_us", where, source, true) * 1e-6;
    if (r.contains("param_index")) {
      if (!r["param_index"].is_number_unsigned())
        fail(source, where + "\"param_index\" must be a whole number >= 0");
      g.paramIndex = r["param_index"].get<std::size_t>();
    }
    t.tensors.push_back(std::move(g));
  }
  checkParamIndices(t);
  validate(t);
  return t;
}

Timeline timelineFromCsv(std::string_view text, const std::string& source) {
  Timeline t;
  t.source = source;
  std::size_t lineNo = 0;
  bool header = false, withIndex = false, sawEnd = false;
  for (const std::string& line : splitList(text, '\n')) {
    ++lineNo;
    const std::string where = "line " + std::to_string(lineNo) + ": ";
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line[0] == '#') {
      const auto eq = line.find('=');
      if (eq == std::string::npos) continue;
      std::string key = line.substr(1, eq - 1);
      key.erase(0, key.find_first_not_of(" \t"));
      key.erase(key.find_last_not_of(" \t") + 1);
      std::string value = line.substr(eq + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      value.erase(value.find_last_not_of(" \t\r") + 1);
      if (key == "format") {
        if (value != kTimelineFormat)
          fail(source, where + "format '" + value + "', this ringlab reads " + kTimelineFormat);
        continue;
      }
      if (key != "backward_end_us" && key != "forward_us" && key != "optimizer_step_us" &&
          key != "copy_bandwidth_GBps") {
        continue;  // other comments are free text
      }
      const double v = numberCell(value, where + key + " ", source);
      if (!std::isfinite(v) || v < 0)
        fail(source, where + key + " = " + value + ": must be finite and >= 0");
      setScalar(t, key, v);
      sawEnd = sawEnd || key == "backward_end_us";
      continue;
    }
    const std::vector<std::string> cells = splitCsv(line);
    if (!header) {
      const std::vector<std::string> want = {"name", "count", "dtype", "ready_us"};
      if (cells.size() < 4 || !std::equal(want.begin(), want.end(), cells.begin()) ||
          (cells.size() == 5 && cells[4] != "param_index") || cells.size() > 5) {
        fail(source, where +
                         "header must be 'name,count,dtype,ready_us' or "
                         "'name,count,dtype,ready_us,param_index'");
      }
      header = true;
      withIndex = cells.size() == 5;
      continue;
    }
    if (cells.size() != (withIndex ? 5u : 4u)) {
      fail(source, where + std::to_string(cells.size()) + " fields, the header has " +
                       (withIndex ? "5" : "4"));
    }
    GradTensor g;
    g.name = cells[0];
    const std::string rec =
        where + "tensor " + std::to_string(t.tensors.size()) + " ('" + g.name + "'): ";
    g.count = countValue(numberCell(cells[1], rec, source), rec, source);
    try {
      g.dtype = parseDataType(cells[2]);
    } catch (const Error& e) {
      fail(source, rec + e.what());
    }
    g.ready_s = numberCell(cells[3], rec, source) * 1e-6;
    if (withIndex) {
      const double v = numberCell(cells[4], rec, source);
      if (!(v >= 0 && v <= 9.0e15) || v != std::floor(v))
        fail(source, rec + "param_index " + cells[4] + " must be a whole number >= 0");
      g.paramIndex = static_cast<std::size_t>(v);
    }
    t.tensors.push_back(std::move(g));
  }
  if (!header) fail(source, "no header line 'name,count,dtype,ready_us'");
  if (!sawEnd) fail(source, "no '# backward_end_us = ...' line");
  checkParamIndices(t);
  validate(t);
  return t;
}

Timeline parseTimeline(std::string_view text, const std::string& source) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    return timelineFromJson(parseJsonText(text, "timeline " + source), source);
  }
  return timelineFromCsv(printableLines(text), source);
}

nlohmann::json toJson(const Timeline& t) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const GradTensor& g : t.tensors) {
    nlohmann::json r = {{"name", g.name},
                        {"count", g.count},
                        {"dtype", dataTypeName(g.dtype)},
                        {"ready_us", g.ready_s * 1e6}};
    if (g.paramIndex) r["param_index"] = *g.paramIndex;
    tensors.push_back(std::move(r));
  }
  nlohmann::json j = {{"format", kTimelineFormat},
                      {"backward_end_us", t.backwardEnd_s * 1e6},
                      {"forward_us", t.forward_s * 1e6},
                      {"optimizer_step_us", t.optimizerStep_s * 1e6},
                      {"tensors", tensors}};
  if (t.copyBytesPerSecond > 0) j["copy_bandwidth_GBps"] = t.copyBytesPerSecond / 1e9;
  return j;
}

}  // namespace ringlab::plan
