#pragma once
// The TCP transport's frame: a fixed 72-byte header, then the payload. Pure encode/parse (no I/O,
// no exceptions) so the fuzz target can call them on arbitrary bytes; the transport then checks a
// data frame against the receive it is matched to (stamp, tag, byte count) before it reads a
// single payload byte into the receiver's buffer.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "ringlab/transport/transport.hpp"

namespace ringlab::transport::tcp {

enum class FrameType : std::uint8_t {
  Data = 1,  // payload: the message
  // payload: where the aborting rank stood (kAbortPointBytes), then its message (UTF-8 text);
  // `code` holds its ErrorCode
  Abort = 2,
};

inline constexpr std::size_t kFrameHeaderBytes = 72;
// An abort's text is cut to this length by the sender and refused above it by the receiver.
inline constexpr std::uint64_t kMaxAbortTextBytes = 4096;
// An abort's WaitPoint, before its text: call u32 | tag u32 | waiting peer u32 (encodeWaitingPeer).
inline constexpr std::size_t kAbortPointBytes = 12;
// The largest ErrorCode value a frame may carry (ErrorCode::Internal).
inline constexpr std::uint8_t kMaxErrorCode = static_cast<std::uint8_t>(ErrorCode::Internal);

struct FrameHeader {
  FrameType type = FrameType::Data;
  std::uint8_t code = 0;  // Abort: the ErrorCode
  std::uint32_t tag = 0;
  std::uint64_t bytes = 0;  // payload length
  CallStamp stamp;
};

// Writes exactly kFrameHeaderBytes.
void encodeFrameHeader(const FrameHeader& header, std::uint8_t* out);
// Parses exactly kFrameHeaderBytes: magic, a known type, zero reserved bytes, and for an abort a
// valid code and a payload of a WaitPoint and at most kMaxAbortTextBytes of text. Returns nullptr
// or the reason. A data frame's length is checked by the caller against the receive it matches.
const char* parseFrameHeader(const std::uint8_t* data, std::size_t bytes, FrameHeader& out);

// Writes exactly kAbortPointBytes.
void encodeAbortPoint(const WaitPoint& at, std::uint8_t* out);
// Reads exactly kAbortPointBytes: nullopt when the peer it names is not a rank of a world of
// `size`.
std::optional<WaitPoint> parseAbortPoint(const std::uint8_t* data, int size);

}  // namespace ringlab::transport::tcp
