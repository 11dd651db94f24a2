#pragma once
// Text as users type it and as ringlab prints it: the one strict number parser, the one list
// splitter and the one short number format that every layer and front end uses.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab {

// "a,b,,c" -> {"a", "b", "", "c"}; an empty text gives no items.
std::vector<std::string> splitList(std::string_view text, char separator = ',');

// The whole text as one finite number ("2.5", "1e-3", " 4" is refused). Throws InvalidArgument
// "<what> '<text>': not a number" otherwise.
double parseNumber(std::string_view text, std::string_view what);

// The whole text as a whole number in [min, max]. Throws InvalidArgument naming `what`, the text
// and the range otherwise.
std::int64_t parseInteger(std::string_view text, std::string_view what, std::int64_t min,
                          std::int64_t max);

// A number as a person reads it: up to 6 significant digits ("2.5e+10", "0.001", "8").
std::string formatNumber(double value);

}  // namespace ringlab
