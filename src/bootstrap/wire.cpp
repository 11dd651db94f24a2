#include "bootstrap/wire.hpp"

#include <cstring>

namespace ringlab::bootstrap::wire {
namespace {

constexpr std::uint32_t kHelloMagic = 0x484c4e52;    // "RNLH"
constexpr std::uint32_t kRequestMagic = 0x514c4e52;  // "RNLQ"
constexpr std::uint16_t kReplyMagic = 0x5052;        // "RP"

bool allZero(const std::uint8_t* p, std::size_t n) {
  std::uint8_t any = 0;
  for (std::size_t i = 0; i < n; ++i) any |= p[i];
  return any == 0;
}

}  // namespace

// Layout: magic u32 | version u16 | kind u8 | status u8 | rank u32 | size u32 | token length u16 |
// channel u8 | channels u8 | token, zero padded to kMaxTokenBytes.
void encodeHello(const Hello& hello, std::uint8_t* out) {
  std::memset(out, 0, kHelloBytes);
  putU32(out, kHelloMagic);
  putU16(out + 4, kProtocolVersion);
  out[6] = static_cast<std::uint8_t>(hello.kind);
  out[7] = static_cast<std::uint8_t>(hello.status);
  putU32(out + 8, hello.rank);
  putU32(out + 12, hello.size);
  const std::size_t n = hello.token.size() < kMaxTokenBytes ? hello.token.size() : kMaxTokenBytes;
  putU16(out + 16, static_cast<std::uint16_t>(n));
  out[18] = hello.channel;
  out[19] = hello.channels;
  std::memcpy(out + 20, hello.token.data(), n);
}

const char* parseHello(const std::uint8_t* data, std::size_t bytes, Hello& out) {
  if (bytes != kHelloBytes) return "hello has the wrong length";
  if (getU32(data) != kHelloMagic) return "not a ringlab hello (bad magic)";
  if (getU16(data + 4) != kProtocolVersion) return "unsupported protocol version";
  const std::uint8_t kind = data[6];
  if (kind < 1 || kind > 4) return "unknown hello kind";
  if (data[7] > 1) return "unknown hello status";
  const std::uint32_t rank = getU32(data + 8), size = getU32(data + 12);
  if (size == 0 || rank >= size) return "rank out of range";
  const std::uint16_t tokenBytes = getU16(data + 16);
  if (tokenBytes > kMaxTokenBytes) return "token longer than allowed";
  const std::uint8_t channel = data[18], channels = data[19];
  if (channels == 0 ? channel != 0 : channel >= channels) return "channel out of range";
  if (!allZero(data + 20 + tokenBytes, kMaxTokenBytes - tokenBytes))
    return "token padding not zero";
  out.kind = static_cast<HelloKind>(kind);
  out.status = static_cast<HelloStatus>(data[7]);
  out.rank = rank;
  out.size = size;
  out.channel = channel;
  out.channels = channels;
  out.token.assign(reinterpret_cast<const char*>(data + 20), tokenBytes);
  return nullptr;
}

bool tokensEqual(std::string_view a, std::string_view b) {
  // Compare over the longest allowed length so the time depends on neither token's content.
  std::uint8_t diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < kMaxTokenBytes; ++i) {
    const std::uint8_t x = i < a.size() ? static_cast<std::uint8_t>(a[i]) : 0;
    const std::uint8_t y = i < b.size() ? static_cast<std::uint8_t>(b[i]) : 0;
    diff |= static_cast<std::uint8_t>(x ^ y);
  }
  return diff == 0 && a.size() <= kMaxTokenBytes;
}

// Layout: magic u32 | op u8 | reserved u8 u16 (zero) | key length u32 | value length or wait u32.
void encodeStoreRequestHeader(const StoreRequestHeader& header, std::uint8_t* out) {
  std::memset(out, 0, kStoreHeaderBytes);
  putU32(out, kRequestMagic);
  out[4] = static_cast<std::uint8_t>(header.op);
  putU32(out + 8, header.keyBytes);
  putU32(out + 12, header.op == StoreOp::Set ? header.valueBytes : header.waitMs);
}

const char* parseStoreRequestHeader(const std::uint8_t* data, std::size_t bytes,
                                    StoreRequestHeader& out) {
  if (bytes != kStoreHeaderBytes) return "request header has the wrong length";
  if (getU32(data) != kRequestMagic) return "not a store request (bad magic)";
  if (data[4] != 1 && data[4] != 2) return "unknown store operation";
  if (!allZero(data + 5, 3)) return "reserved field not zero";
  out.op = static_cast<StoreOp>(data[4]);
  out.keyBytes = getU32(data + 8);
  if (out.keyBytes == 0 || out.keyBytes > kMaxKeyBytes) return "key length out of range";
  out.valueBytes = out.waitMs = 0;
  if (out.op == StoreOp::Set) {
    out.valueBytes = getU32(data + 12);
    if (out.valueBytes > kMaxValueBytes) return "value longer than allowed";
  } else {
    out.waitMs = getU32(data + 12);
    if (out.waitMs > kMaxGetWaitMs) return "wait longer than allowed";
  }
  return nullptr;
}

// Layout: magic u16 | status u8 | reserved u8 (zero) | value length u32.
void encodeStoreReplyHeader(const StoreReplyHeader& header, std::uint8_t* out) {
  putU16(out, kReplyMagic);
  out[2] = static_cast<std::uint8_t>(header.status);
  out[3] = 0;
  putU32(out + 4, header.valueBytes);
}

const char* parseStoreReplyHeader(const std::uint8_t* data, std::size_t bytes,
                                  StoreReplyHeader& out) {
  if (bytes != kStoreReplyBytes) return "reply header has the wrong length";
  if (getU16(data) != kReplyMagic) return "not a store reply (bad magic)";
  if (data[2] > 2) return "unknown store reply status";
  if (data[3] != 0) return "reserved field not zero";
  out.status = static_cast<StoreStatus>(data[2]);
  out.valueBytes = getU32(data + 4);
  if (out.valueBytes > kMaxValueBytes) return "value longer than allowed";
  if (out.status != StoreStatus::Value && out.valueBytes != 0)
    return "length on a reply without a value";
  return nullptr;
}

}  // namespace ringlab::bootstrap::wire
