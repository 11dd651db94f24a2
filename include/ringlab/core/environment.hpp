#pragma once
// Settings read from environment variables: the one bounded integer reader, so that every
// variable that holds a number (a rank, a port, a count of connections) refuses empty, garbage and
// out-of-range values with the same one-line message.
#include <cstdint>
#include <optional>
#include <string_view>

namespace ringlab {

// The whole text, the value of variable `name`, as an integer in [min, max]; `what` says what the
// number is ("the port"). Throws InvalidArgument "<name>='<text>': <what> must be an integer in
// <min>..<max>" for an empty text, anything but digits (with an optional leading minus) or a value
// out of range.
std::int64_t environmentInteger(std::string_view name, std::string_view text, std::string_view what,
                                std::int64_t min, std::int64_t max);

// Variable `name` read and checked as above; none when it is unset (set but empty is refused).
std::optional<std::int64_t> readEnvironmentInteger(const char* name, std::string_view what,
                                                   std::int64_t min, std::int64_t max);

}  // namespace ringlab
