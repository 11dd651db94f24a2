#pragma once
// Names of enum values, kept in one table per enum rather than a switch and its parse twin: an
// array of {value, name} pairs that both directions read. A value may have several entries: the
// first is its name, the later ones aliases that parsing accepts ("half" for float16).
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab {

template <typename Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};

// The value's first name in the table; "unknown" for a value the table lacks (a number cast from
// what a peer sent).
template <typename Enum, std::size_t N>
constexpr std::string_view enumName(std::span<const EnumName<Enum>, N> table, Enum value) {
  for (const EnumName<Enum>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "unknown";
}

// "a, b (alias), c": each value once, in table order, its aliases in brackets.
template <typename Enum, std::size_t N>
std::string enumNameList(std::span<const EnumName<Enum>, N> table) {
  std::string list;
  for (std::size_t i = 0; i < table.size(); ++i) {
    bool first = true;
    for (std::size_t j = 0; j < i; ++j) first = first && table[j].value != table[i].value;
    if (!first) continue;
    list += (list.empty() ? "" : ", ") + std::string(table[i].name);
    std::string aliases;
    for (std::size_t j = i + 1; j < table.size(); ++j) {
      if (table[j].value == table[i].value)
        aliases += (aliases.empty() ? "" : ", ") + std::string(table[j].name);
    }
    if (!aliases.empty()) list += " (" + aliases + ")";
  }
  return list;
}

// The value a name or alias in the table stands for; none for another name (a caller that words
// its own refusal).
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> findEnum(std::span<const EnumName<Enum>, N> table,
                                       std::string_view name) {
  for (const EnumName<Enum>& entry : table) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

// The value a name or alias in the table stands for. Throws InvalidArgument
// "unknown <what> '<name>': valid are <enumNameList>" otherwise.
template <typename Enum, std::size_t N>
Enum parseEnum(std::span<const EnumName<Enum>, N> table, std::string_view name,
               std::string_view what) {
  if (const std::optional<Enum> value = findEnum(table, name)) return *value;
  throwInvalid("unknown " + std::string(what) + " '" + printableText(name, 40) + "': valid are " +
               enumNameList(table));
}

}  // namespace ringlab
