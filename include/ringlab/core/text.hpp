#pragma once
// Text as users type it and as ringlab prints it: the one strict number parser, the one list
// splitter and the one short number format that every layer and front end uses.
#include <cstddef>
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

// The whole text as a finite number in [min, max]: every number a file holds as text (a log's
// times, an XML attribute) is read through here. Throws InvalidArgument "<what> '<text>': must
// be a number in <min>..<max>" otherwise, the text shown printably and cut to 40 bytes (a
// 300-digit value stays one short line).
double parseNumberIn(std::string_view text, std::string_view what, double min, double max);

// Text another process sent (a peer's abort reason, the algorithm name in its call stamp, an
// address it published) made safe to print inside one error line: printable ASCII is kept, any
// other byte (control characters, ANSI escapes, newlines, non-ASCII) becomes \xNN, and only the
// first `maxBytes` bytes are shown, followed by " [N more bytes]". Every peer-supplied text goes
// through here before it reaches a message.
inline constexpr std::size_t kMaxPeerTextBytes = 512;
std::string printableText(std::string_view text, std::size_t maxBytes = kMaxPeerTextBytes);

// A file's text under the same rule, its lines kept: tabs, newlines and CRLF line ends stay, any
// other byte outside printable ASCII (a lone carriage return among them) becomes \xNN. Every text
// format (logs, NCCL XML, CSV) goes through here where it enters the program, so that a name echoed
// from a file cannot clear the screen or retitle the terminal. Text that needs no change is
// returned as it is.
std::string printableLines(std::string_view text);

// Whether the byte is kept as it is by printableText (printable ASCII).
inline bool isPrintableByte(unsigned char byte) {
  return byte >= 0x20 && byte < 0x7f;
}

// ASCII letters in lower case, every other byte as it is: names compared without regard to case
// ("H100" and "h100", NCCL_ALGO's "ring" and "Ring").
std::string lowerCase(std::string_view text);

// A number as a person reads it: up to 6 significant digits ("2.5e+10", "0.001", "8").
std::string formatNumber(double value);

}  // namespace ringlab
