#pragma once
// Byte layouts of what ringlab's TCP connections exchange before and around data: the challenge
// and hellos that authenticate every connection (store and data alike), and the store's requests
// and replies.
// Pure encode/parse functions: no I/O, no allocation beyond the output strings, no exceptions,
// so that the fuzz target (fuzz/tcp_frame_fuzz.cpp) can call them on arbitrary bytes. A parse
// returns nullptr when the bytes are well formed, else a short reason for the log line.
#include <array>
#include <cstddef>
#include <cstdint>

namespace ringlab::bootstrap::wire {

// Longest job token (bytes). The token never crosses the wire: a connection proves it knows it
// with a keyed digest of a fresh challenge (bootstrap/handshake.hpp).
inline constexpr std::size_t kMaxTokenBytes = 256;
// Ranks of different versions refuse each other's hellos, so every byte layout of the transport
// (hellos, store requests, tcp frames) changes only with it. 3: an abort frame says where its
// sender stood (transport/tcp/frame.hpp).
inline constexpr std::uint16_t kProtocolVersion = 3;

inline constexpr std::size_t kNonceBytes = 32;
inline constexpr std::size_t kProofBytes = 32;  // an HMAC-SHA256
using Nonce = std::array<std::uint8_t, kNonceBytes>;
using Proof = std::array<std::uint8_t, kProofBytes>;

// The first bytes on every connection, sent by the side that accepted it: a fresh nonce that the
// connecting side's proof must cover, so that a hello recorded on one connection is worth nothing
// on another.
inline constexpr std::size_t kChallengeBytes = 8 + kNonceBytes;
struct Challenge {
  Nonce nonce{};
};
void encodeChallenge(const Challenge& challenge, std::uint8_t* out);
const char* parseChallenge(const std::uint8_t* data, std::size_t bytes, Challenge& out);

enum class HelloKind : std::uint8_t {
  StoreClient = 1,  // a rank opening the rendezvous store
  StoreServer = 2,  // the store's answer
  DataConnect = 3,  // a rank connecting to a peer's data port
  DataAccept = 4,   // the peer's answer
};

enum class HelloStatus : std::uint8_t { Ok = 0, Refused = 1 };

// The hello's fields and nonce, which its proof covers (with the other side's nonce after them).
inline constexpr std::size_t kHelloProvedBytes = 20 + kNonceBytes;
// Fixed size, so that a reader never has to trust a length before authenticating.
inline constexpr std::size_t kHelloBytes = kHelloProvedBytes + kProofBytes;

struct Hello {
  HelloKind kind = HelloKind::StoreClient;
  HelloStatus status = HelloStatus::Ok;
  std::uint32_t rank = 0;
  std::uint32_t size = 0;
  // Data connections: this connection's channel and how many the connecting rank opens per peer
  // (transport/tcp); zero for the store's connections.
  std::uint8_t channel = 0;
  std::uint8_t channels = 0;
  Nonce nonce{};  // the sender's: the connector's own, or the acceptor's challenge repeated
  Proof proof{};  // HMAC-SHA256 with the token as key (handshake.hpp); zero in a refusal
};

// Writes exactly kHelloBytes to `out`, the proof as given.
void encodeHello(const Hello& hello, std::uint8_t* out);
// Parses exactly kHelloBytes. Checks magic, version, kind, status, rank < size, channel <
// channels (or both zero) and the reserved bytes; does not judge the proof (handshake.hpp does).
const char* parseHello(const std::uint8_t* data, std::size_t bytes, Hello& out);

// Store requests: a 16-byte header, then the key, then (SET) the value.
enum class StoreOp : std::uint8_t { Set = 1, Get = 2 };
inline constexpr std::size_t kStoreHeaderBytes = 16;
inline constexpr std::uint32_t kMaxKeyBytes = 1024;
inline constexpr std::uint32_t kMaxValueBytes = 1u << 20;
// A GET waits at most this long on the server (one day), whatever the client asks.
inline constexpr std::uint32_t kMaxGetWaitMs = 86'400'000;

struct StoreRequestHeader {
  StoreOp op = StoreOp::Set;
  std::uint32_t keyBytes = 0;
  std::uint32_t valueBytes = 0;  // SET: the value's length
  std::uint32_t waitMs = 0;      // GET: how long the server waits for the key
};

void encodeStoreRequestHeader(const StoreRequestHeader& header, std::uint8_t* out);
const char* parseStoreRequestHeader(const std::uint8_t* data, std::size_t bytes,
                                    StoreRequestHeader& out);

// Store replies: an 8-byte header, then (Value) the value.
enum class StoreStatus : std::uint8_t { Ok = 0, Value = 1, NotFound = 2 };
inline constexpr std::size_t kStoreReplyBytes = 8;

struct StoreReplyHeader {
  StoreStatus status = StoreStatus::Ok;
  std::uint32_t valueBytes = 0;
};

void encodeStoreReplyHeader(const StoreReplyHeader& header, std::uint8_t* out);
const char* parseStoreReplyHeader(const std::uint8_t* data, std::size_t bytes,
                                  StoreReplyHeader& out);

// Little-endian field access, shared with the data frames.
inline void putU16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}
inline void putU32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline void putU64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline std::uint16_t getU16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
inline std::uint32_t getU32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline std::uint64_t getU64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace ringlab::bootstrap::wire
