#pragma once
// JSON from a file, read the one way every JSON format is read (records, profiles, decision
// tables, timelines, topology files, torch traces): nesting bounded, every string made printable
// where it enters the program, and every number a field holds checked against its range before
// it is used. Errors name the file, the field, the value and what is valid, on one line.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ringlab {

// Far deeper than any format ringlab reads (a torch trace nests 4 deep) and shallow enough that
// whatever walks a document recursively (dump, comparison, destruction) stays on the stack.
inline constexpr int kMaxJsonDepth = 64;

// The document. Throws InvalidArgument "<source>: not valid JSON (...)" on a syntax error,
// "<source>: nested deeper than 64 levels" past kMaxJsonDepth, and "<source>: a key holds a
// control character ('\x1b[2J')" for such a key; string values keep their text with every byte
// outside printable ASCII as \xNN (printableText's rule). `keep`, when given, filters as
// nlohmann's parser callback does (events outside it are dropped while parsing).
nlohmann::json parseJsonText(std::string_view text, std::string_view source,
                             const nlohmann::json::parser_callback_t& keep = nullptr);

// A value as an error shows it: printable, cut to 40 bytes however long the file's text is.
std::string jsonValueText(const nlohmann::json& value);

// A number field: finite and in [min, max], or InvalidArgument "<where>: <field> = <value>: must
// be a number in <min>..<max>". A string, a list or null where a number belongs is refused so too.
double jsonNumber(const nlohmann::json& value, std::string_view where, std::string_view field,
                  double min, double max);

// A whole-number field in [min, max] (2^32 + 2 is not 2, 4.5 is not 4), or InvalidArgument
// "<where>: <field> = <value>: must be a whole number in <min>..<max>".
std::int64_t jsonWhole(const nlohmann::json& value, std::string_view where, std::string_view field,
                       std::int64_t min, std::int64_t max);

// A string field, or InvalidArgument "<where>: <field> = <value>: must be a string".
const std::string& jsonString(const nlohmann::json& value, std::string_view where,
                              std::string_view field);

}  // namespace ringlab
