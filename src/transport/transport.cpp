#include "ringlab/transport/transport.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <span>

#include "ringlab/core/collective.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::transport {

bool CallStamp::operator==(const CallStamp& other) const {
  return std::memcmp(this, &other, sizeof(CallStamp)) == 0;
}

std::uint64_t CallStamp::digest() const {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const std::byte b : std::as_bytes(std::span(this, 1))) {
    hash = (hash ^ std::to_integer<std::uint64_t>(b)) * 0x100000001b3ull;
  }
  return hash;
}

std::string CallStamp::describe() const {
  const auto name = [](auto value, int limit, auto toName) -> std::string {
    return value < limit ? std::string(toName(value)) : "?" + std::to_string(value);
  };
  const std::string collectiveText =
      name(collective, static_cast<int>(std::size(kAllCollectives)),
           [](int c) { return collectiveName(static_cast<Collective>(c)); });
  const std::string typeText = name(type, static_cast<int>(std::size(kAllDataTypes)),
                                    [](int t) { return dataTypeName(static_cast<DataType>(t)); });
  const std::string opText = name(op, static_cast<int>(ReduceOp::PreMulSum) + 1,
                                  [](int o) { return reduceOpName(static_cast<ReduceOp>(o)); });
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08x", specHash);
  return collectiveText + " of " + std::to_string(count) + " x " + typeText + ", " + opText + ", " +
         printableText(std::string_view(algorithm, strnlen(algorithm, sizeof algorithm))) +
         " (spec " + hash + ")";
}

Error stampMismatch(int rank, const CallStamp& mine, int peer, const CallStamp& theirs) {
  return Error(ErrorCode::Mismatch, "rank " + std::to_string(rank) + " called " + mine.describe() +
                                        " but rank " + std::to_string(peer) + " called " +
                                        theirs.describe() +
                                        "; every rank must make the same collective call");
}

Request Transport::irecvReduce(int, void*, const void*, std::uint64_t, const Reduction&,
                               std::uint32_t) {
  throw Error(ErrorCode::Internal, name() + " transport does not reduce on receive");
}

std::chrono::milliseconds timeLeft(std::chrono::steady_clock::time_point deadline) {
  return std::max(std::chrono::milliseconds(1), std::chrono::ceil<std::chrono::milliseconds>(
                                                    deadline - std::chrono::steady_clock::now()));
}

void Transport::waitUntil(Request request, std::chrono::steady_clock::time_point deadline) {
  wait(request, timeLeft(deadline));
}

void* Transport::allocateShared(std::size_t) {
  return nullptr;
}

std::vector<PeerReport> Transport::survey(std::chrono::steady_clock::time_point) {
  std::vector<PeerReport> reports(static_cast<std::size_t>(size()));
  reports[static_cast<std::size_t>(rank())].state = PeerState::Answered;
  return reports;
}

}  // namespace ringlab::transport
