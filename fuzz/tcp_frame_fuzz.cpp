// libFuzzer target over everything ringlab parses from the network before it trusts the sender:
// the challenge and the hello (store and data connections), the store's request and reply
// headers, and the TCP transport's frame header. Each parser gets the input as it is; whatever
// parses must re-encode to the same bytes (so no field is silently dropped or clamped), and nothing
// may read past the bytes given (AddressSanitizer watches).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bootstrap/wire.hpp"
#include "transport/tcp/frame.hpp"

namespace {

namespace wire = ringlab::bootstrap::wire;
namespace tcp = ringlab::transport::tcp;

// An exact-size heap copy, so that ASan flags any read past the end.
std::vector<std::uint8_t> copyOf(const std::uint8_t* data, std::size_t size, std::size_t want) {
  return std::vector<std::uint8_t>(data, data + (size < want ? size : want));
}

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    const auto bytes = copyOf(data, size, wire::kHelloBytes);
    wire::Hello hello;
    if (!wire::parseHello(bytes.data(), bytes.size(), hello)) {
      check(hello.rank < hello.size);
      std::uint8_t again[wire::kHelloBytes];
      wire::encodeHello(hello, again);
      check(std::memcmp(again, bytes.data(), wire::kHelloBytes) == 0);
    }
  }
  {
    const auto bytes = copyOf(data, size, wire::kChallengeBytes);
    wire::Challenge challenge;
    if (!wire::parseChallenge(bytes.data(), bytes.size(), challenge)) {
      std::uint8_t again[wire::kChallengeBytes];
      wire::encodeChallenge(challenge, again);
      check(std::memcmp(again, bytes.data(), wire::kChallengeBytes) == 0);
    }
  }
  {
    const auto bytes = copyOf(data, size, wire::kStoreHeaderBytes);
    wire::StoreRequestHeader header;
    if (!wire::parseStoreRequestHeader(bytes.data(), bytes.size(), header)) {
      check(header.keyBytes >= 1 && header.keyBytes <= wire::kMaxKeyBytes);
      check(header.valueBytes <= wire::kMaxValueBytes && header.waitMs <= wire::kMaxGetWaitMs);
      std::uint8_t again[wire::kStoreHeaderBytes];
      wire::encodeStoreRequestHeader(header, again);
      check(std::memcmp(again, bytes.data(), wire::kStoreHeaderBytes) == 0);
    }
  }
  {
    const auto bytes = copyOf(data, size, wire::kStoreReplyBytes);
    wire::StoreReplyHeader header;
    if (!wire::parseStoreReplyHeader(bytes.data(), bytes.size(), header)) {
      check(header.valueBytes <= wire::kMaxValueBytes);
      std::uint8_t again[wire::kStoreReplyBytes];
      wire::encodeStoreReplyHeader(header, again);
      check(std::memcmp(again, bytes.data(), wire::kStoreReplyBytes) == 0);
    }
  }
  {
    // A stream of frames, as the transport's reader walks it: header, then the payload skipped.
    std::size_t at = 0;
    const auto stream = copyOf(data, size, size);
    while (stream.size() - at >= tcp::kFrameHeaderBytes) {
      const auto bytes = copyOf(stream.data() + at, stream.size() - at, tcp::kFrameHeaderBytes);
      tcp::FrameHeader header;
      if (tcp::parseFrameHeader(bytes.data(), bytes.size(), header)) break;
      if (header.type == tcp::FrameType::Abort) {
        check(header.bytes >= tcp::kAbortPointBytes &&
              header.bytes <= tcp::kAbortPointBytes + tcp::kMaxAbortTextBytes);
        if (header.bytes <= stream.size() - at - tcp::kFrameHeaderBytes) {
          // A wait point names a rank of the world or nothing usable.
          const auto point = tcp::parseAbortPoint(stream.data() + at + tcp::kFrameHeaderBytes, 4);
          check(!point || (point->peer >= -1 && point->peer < 4));
        }
      }
      std::uint8_t again[tcp::kFrameHeaderBytes];
      tcp::encodeFrameHeader(header, again);
      check(std::memcmp(again, bytes.data(), tcp::kFrameHeaderBytes) == 0);
      at += tcp::kFrameHeaderBytes;
      if (header.bytes > stream.size() - at) break;
      at += static_cast<std::size_t>(header.bytes);
    }
  }
  return 0;
}
