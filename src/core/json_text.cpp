#include "ringlab/core/json_text.hpp"

#include <cmath>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab {
using json = nlohmann::json;

std::string jsonValueText(const json& value) {
  return printableText(value.dump(-1, ' ', false, json::error_handler_t::replace), 40);
}

namespace {

// A C0 control, DEL, or a C1 control in UTF-8 (U+0080..U+009F: 8-bit CSI among them).
bool holdsControl(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7f) return true;
    if (byte == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xa0)
      return true;
  }
  return false;
}

bool needsEscape(const std::string& text) {
  for (const char c : text)
    if (!isPrintableByte(static_cast<unsigned char>(c))) return true;
  return false;
}

}  // namespace

json parseJsonText(std::string_view text, std::string_view source,
                   const json::parser_callback_t& keep) {
  const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth) {
      throwInvalid(fmt::format("{}: nested deeper than {} levels", source, kMaxJsonDepth));
    }
    if (event == json::parse_event_t::key && holdsControl(parsed.get_ref<const std::string&>())) {
      throwInvalid(fmt::format("{}: a key holds a control character ('{}')", source,
                               printableText(parsed.get_ref<const std::string&>(), 40)));
    }
    // A value's change is kept by the parser (a key's is not: those are refused above).
    if (event == json::parse_event_t::value && parsed.is_string() &&
        needsEscape(parsed.get_ref<const std::string&>())) {
      parsed = printableText(parsed.get_ref<const std::string&>(), std::string::npos);
    }
    return keep ? keep(depth, event, parsed) : true;
  };
  try {
    return json::parse(text, check);
  } catch (const json::exception& e) {
    throwInvalid(fmt::format("{}: not valid JSON ({})", source, printableText(e.what())));
  }
}

double jsonNumber(const json& value, std::string_view where, std::string_view field, double min,
                  double max) {
  const double x = value.is_number() ? value.get<double>() : std::nan("");
  if (!(std::isfinite(x) && x >= min && x <= max)) {
    throwInvalid(fmt::format("{}: {} = {}: must be a number in {}..{}", where, field,
                             jsonValueText(value), formatNumber(min), formatNumber(max)));
  }
  return x;
}

std::int64_t jsonWhole(const json& value, std::string_view where, std::string_view field,
                       std::int64_t min, std::int64_t max) {
  // A parsed non-negative integer is unsigned, one built in a program signed: either, read wide.
  const bool inRange = value.is_number_unsigned()
                           ? value.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX) &&
                                 value.get<std::int64_t>() >= min &&
                                 value.get<std::int64_t>() <= max
                           : value.is_number_integer() && value.get<std::int64_t>() >= min &&
                                 value.get<std::int64_t>() <= max;
  if (!inRange) {
    throwInvalid(fmt::format("{}: {} = {}: must be a whole number in {}..{}", where, field,
                             jsonValueText(value), min, max));
  }
  return value.get<std::int64_t>();
}

const std::string& jsonString(const json& value, std::string_view where, std::string_view field) {
  if (!value.is_string())
    throwInvalid(fmt::format("{}: {} = {}: must be a string", where, field, jsonValueText(value)));
  return value.get_ref<const std::string&>();
}

}  // namespace ringlab
