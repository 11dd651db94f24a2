#include "bootstrap/wire.hpp"

#include <cstring>

namespace ringlab::bootstrap::wire {
namespace {

constexpr std::uint32_t kChallengeMagic = 0x434c4e52;  // "RNLC"
constexpr std::uint32_t kHelloMagic = 0x484c4e52;      // "RNLH"
constexpr std::uint32_t kRequestMagic = 0x514c4e52;    // "RNLQ"
constexpr std::uint16_t kReplyMagic = 0x5052;          // "RP"

bool allZero(const std::uint8_t* p, std::size_t n) {
  std::uint8_t any = 0;
  for (std::size_t i = 0; i < n; ++i) any |= p[i];
  return any == 0;
}

}  // namespace

// Layout: magic u32 | version u16 | reserved u16 (zero) | nonce.
void encodeChallenge(const Challenge& challenge, std::uint8_t* out) {
  std::memset(out, 0, kChallengeBytes);
  putU32(out, kChallengeMagic);
  putU16(out + 4, kProtocolVersion);
  std::memcpy(out + 8, challenge.nonce.data(), kNonceBytes);
}

const char* parseChallenge(const std::uint8_t* data, std::size_t bytes, Challenge& out) {
  if (bytes != kChallengeBytes) return "challenge has the wrong length";
  if (getU32(data) != kChallengeMagic) return "not a ringlab challenge (bad magic)";
  if (getU16(data + 4) != kProtocolVersion) return "unsupported protocol version";
  if (!allZero(data + 6, 2)) return "reserved field not zero";
  std::memcpy(out.nonce.data(), data + 8, kNonceBytes);
  return nullptr;
}

// Layout: magic u32 | version u16 | kind u8 | status u8 | rank u32 | size u32 | channel u8 |
// channels u8 | reserved u16 (zero) | nonce | proof.
void encodeHello(const Hello& hello, std::uint8_t* out) {
  std::memset(out, 0, kHelloBytes);
  putU32(out, kHelloMagic);
  putU16(out + 4, kProtocolVersion);
  out[6] = static_cast<std::uint8_t>(hello.kind);
  out[7] = static_cast<std::uint8_t>(hello.status);
  putU32(out + 8, hello.rank);
  putU32(out + 12, hello.size);
  out[16] = hello.channel;
  out[17] = hello.channels;
  std::memcpy(out + 20, hello.nonce.data(), kNonceBytes);
  std::memcpy(out + kHelloProvedBytes, hello.proof.data(), kProofBytes);
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
  const std::uint8_t channel = data[16], channels = data[17];
  if (channels == 0 ? channel != 0 : channel >= channels) return "channel out of range";
  if (!allZero(data + 18, 2)) return "reserved field not zero";
  out.kind = static_cast<HelloKind>(kind);
  out.status = static_cast<HelloStatus>(data[7]);
  out.rank = rank;
  out.size = size;
  out.channel = channel;
  out.channels = channels;
  std::memcpy(out.nonce.data(), data + 20, kNonceBytes);
  std::memcpy(out.proof.data(), data + kHelloProvedBytes, kProofBytes);
  return nullptr;
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
