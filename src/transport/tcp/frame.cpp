#include "transport/tcp/frame.hpp"

#include <cstring>

#include "bootstrap/wire.hpp"

namespace ringlab::transport::tcp {
namespace {

constexpr std::uint32_t kFrameMagic = 0x464c4e52;  // "RNLF"

}  // namespace

// Layout: magic u32 | type u8 | code u8 | reserved u16 (zero) | tag u32 | reserved u32 (zero) |
// payload length u64 | CallStamp (48 raw bytes) = 72 bytes.
void encodeFrameHeader(const FrameHeader& header, std::uint8_t* out) {
  using namespace bootstrap::wire;
  putU32(out, kFrameMagic);
  out[4] = static_cast<std::uint8_t>(header.type);
  out[5] = header.code;
  putU16(out + 6, 0);
  putU32(out + 8, header.tag);
  putU32(out + 12, 0);
  putU64(out + 16, header.bytes);
  std::memcpy(out + 24, &header.stamp, sizeof(CallStamp));
}

const char* parseFrameHeader(const std::uint8_t* data, std::size_t bytes, FrameHeader& out) {
  using namespace bootstrap::wire;
  static_assert(24 + sizeof(CallStamp) == kFrameHeaderBytes);
  if (bytes != kFrameHeaderBytes) return "frame header has the wrong length";
  if (getU32(data) != kFrameMagic) return "not a ringlab frame (bad magic)";
  const std::uint8_t type = data[4];
  if (type != static_cast<std::uint8_t>(FrameType::Data) &&
      type != static_cast<std::uint8_t>(FrameType::Abort)) {
    return "unknown frame type";
  }
  if (getU16(data + 6) != 0 || getU32(data + 12) != 0) return "reserved field not zero";
  out.type = static_cast<FrameType>(type);
  out.code = data[5];
  out.tag = getU32(data + 8);
  out.bytes = getU64(data + 16);
  std::memcpy(&out.stamp, data + 24, sizeof(CallStamp));
  if (out.type == FrameType::Abort) {
    if (out.code > kMaxErrorCode) return "abort frame with an unknown error code";
    if (out.bytes < kAbortPointBytes) return "abort frame shorter than its wait point";
    if (out.bytes > kAbortPointBytes + kMaxAbortTextBytes) return "abort text longer than allowed";
  } else if (out.code != 0) {
    return "data frame with a nonzero code";
  }
  return nullptr;
}

// Protocol version 3 (bootstrap/wire.hpp) put the WaitPoint before an abort's text.
void encodeAbortPoint(const WaitPoint& at, std::uint8_t* out) {
  using namespace bootstrap::wire;
  putU32(out, at.call);
  putU32(out + 4, at.tag);
  putU32(out + 8, encodeWaitingPeer(at));
}

std::optional<WaitPoint> parseAbortPoint(const std::uint8_t* data, int size) {
  using namespace bootstrap::wire;
  return decodeWaitPoint(getU32(data + 8), getU32(data + 4), getU32(data), size);
}

}  // namespace ringlab::transport::tcp
