// TEST ONLY (see the header): a Transport decorator that corrupts, drops or delays one rank's
// messages, or stops or kills the rank, as RINGLAB_FAULT says.
#include "ringlab/transport/fault_injection.hpp"

#include <signal.h>

#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::transport {
namespace {

// Requests of sends that were dropped: complete at once, never seen by the inner transport.
constexpr std::uint32_t kDroppedBit = 0x80000000u;

[[noreturn]] void badPlan(const std::string& text, const std::string& why) {
  throwInvalid(
      "RINGLAB_FAULT='" + text + "': " + why +
      "; valid is KIND,rank=R[,count=N][,ms=D][,every][,at=setup] with KIND one of corrupt, "
      "drop, delay, stop, kill (a test-only switch)");
}

void actOnProcess(FaultKind kind) {
  if (kind == FaultKind::Stop) raise(SIGSTOP);
  if (kind == FaultKind::Kill) raise(SIGKILL);
}

class FaultyTransport final : public Transport {
 public:
  FaultyTransport(Transport& inner, const FaultPlan& plan) : inner_(inner), plan_(plan) {}

  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  std::string name() const override { return inner_.name(); }
  bool reducesOnReceive() const override { return inner_.reducesOnReceive(); }
  void* allocateShared(std::size_t bytes) override { return inner_.allocateShared(bytes); }

  void setCallStamp(const CallStamp& stamp) override {
    Transport::setCallStamp(stamp);
    inner_.setCallStamp(stamp);
    matches_ = plan_.count == 0 || stamp.count == plan_.count;
    firedInCall_ = false;
  }

  Request isend(int peer, const void* data, std::size_t bytes, std::uint32_t tag) override {
    if (dropping_ && peer == droppedPeer_) return Request{kDroppedBit};
    if (bytes > 0 && matches_ && plan_.kind == FaultKind::Delay && plan_.everyMessage) {
      std::this_thread::sleep_for(plan_.delay);
    }
    if (bytes == 0 || !matches_ || firedInCall_ || done_)
      return inner_.isend(peer, data, bytes, tag);
    firedInCall_ = true;
    switch (plan_.kind) {
      case FaultKind::Corrupt: {
        const auto* bytesIn = static_cast<const std::byte*>(data);
        corrupted_.assign(bytesIn, bytesIn + bytes);
        const std::size_t top = std::min(bytes, dataTypeSize(static_cast<DataType>(stamp_.type)));
        corrupted_[top - 1] ^= std::byte{0x40};
        return inner_.isend(peer, corrupted_.data(), bytes, tag);
      }
      case FaultKind::Drop:
        dropping_ = done_ = true;
        droppedPeer_ = peer;
        return Request{kDroppedBit};
      case FaultKind::Delay:
        if (!plan_.everyMessage) std::this_thread::sleep_for(plan_.delay);
        break;
      case FaultKind::Stop:
      case FaultKind::Kill:
        done_ = true;
        actOnProcess(plan_.kind);
        break;
    }
    return inner_.isend(peer, data, bytes, tag);
  }

  Request irecv(int peer, void* data, std::size_t bytes, std::uint32_t tag) override {
    return inner_.irecv(peer, data, bytes, tag);
  }

  Request irecvReduce(int peer, void* dst, const void* mine, std::uint64_t count,
                      const Reduction& how, std::uint32_t tag) override {
    return inner_.irecvReduce(peer, dst, mine, count, how, tag);
  }

  void wait(Request request, std::chrono::milliseconds timeout) override {
    if (request.slot != kDroppedBit) inner_.wait(request, timeout);
  }

  void waitUntil(Request request, std::chrono::steady_clock::time_point deadline) override {
    if (request.slot != kDroppedBit) inner_.waitUntil(request, deadline);
  }

  void abort(const Error& cause, const WaitPoint& at) override { inner_.abort(cause, at); }

  std::vector<PeerReport> survey(std::chrono::steady_clock::time_point until) override {
    return inner_.survey(until);
  }

 private:
  Transport& inner_;
  const FaultPlan plan_;
  bool matches_ = false;
  bool firedInCall_ = false;
  bool done_ = false;  // drop and stop/kill fire once
  bool dropping_ = false;
  int droppedPeer_ = -1;
  std::vector<std::byte> corrupted_;  // the corrupted copy in flight (one per call)
};

}  // namespace

FaultPlan parseFaultPlan(const std::string& text) {
  const std::vector<std::string> parts = splitList(text);
  if (parts.empty()) badPlan(text, "empty");
  FaultPlan plan;
  const std::string& kind = parts[0];
  if (kind == "corrupt") {
    plan.kind = FaultKind::Corrupt;
  } else if (kind == "drop") {
    plan.kind = FaultKind::Drop;
  } else if (kind == "delay") {
    plan.kind = FaultKind::Delay;
  } else if (kind == "stop") {
    plan.kind = FaultKind::Stop;
  } else if (kind == "kill") {
    plan.kind = FaultKind::Kill;
  } else {
    badPlan(text, "unknown kind '" + kind + "'");
  }
  bool rankGiven = false;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::size_t eq = parts[i].find('=');
    const std::string key = parts[i].substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : parts[i].substr(eq + 1);
    if (key == "rank") {
      plan.rank = static_cast<int>(parseInteger(value, "RINGLAB_FAULT rank", 0, 1 << 20));
      rankGiven = true;
    } else if (key == "count") {
      plan.count = static_cast<std::uint64_t>(
          parseInteger(value, "RINGLAB_FAULT count", 1, std::int64_t{1} << 50));
    } else if (key == "ms") {
      plan.delay =
          std::chrono::milliseconds(parseInteger(value, "RINGLAB_FAULT ms", 0, 86'400'000));
    } else if (parts[i] == "every" && plan.kind == FaultKind::Delay) {
      plan.everyMessage = true;
    } else if (key == "at" && value == "setup" &&
               (plan.kind == FaultKind::Stop || plan.kind == FaultKind::Kill)) {
      plan.atSetup = true;
    } else {
      badPlan(text, "unknown setting '" + parts[i] + "' for " + kind);
    }
  }
  if (!rankGiven) badPlan(text, "no rank=R");
  return plan;
}

const std::optional<FaultPlan>& faultPlanFromEnvironment() {
  static const std::optional<FaultPlan> plan = []() -> std::optional<FaultPlan> {
    const char* value = std::getenv("RINGLAB_FAULT");
    if (!value || !*value) return std::nullopt;
    return parseFaultPlan(value);
  }();
  return plan;
}

std::unique_ptr<Transport> injectFaults(Transport& inner) {
  const std::optional<FaultPlan>& plan = faultPlanFromEnvironment();
  if (!plan || plan->atSetup || plan->rank != inner.rank()) return nullptr;
  return std::make_unique<FaultyTransport>(inner, *plan);
}

void injectSetupFault(int rank) {
  const std::optional<FaultPlan>& plan = faultPlanFromEnvironment();
  if (plan && plan->atSetup && plan->rank == rank) actOnProcess(plan->kind);
}

}  // namespace ringlab::transport
