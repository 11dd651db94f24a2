#pragma once
// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the challenge-response that proves a
// connection knows the job token without sending it (bootstrap/handshake.hpp). Small and pure;
// checked against the FIPS 180-2 and RFC 4231 test vectors (tests/bootstrap_test.cpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ringlab::bootstrap {

using Sha256Digest = std::array<std::uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t bytes);
  Sha256Digest finish();  // the object is spent afterwards

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> block_{};
  std::size_t blockBytes_ = 0;
  std::uint64_t totalBytes_ = 0;
};

Sha256Digest sha256(std::string_view data);
Sha256Digest hmacSha256(std::string_view key, std::string_view message);

// Compares two digests in a time that does not depend on where they differ.
bool digestsEqual(const Sha256Digest& a, const Sha256Digest& b);

}  // namespace ringlab::bootstrap
