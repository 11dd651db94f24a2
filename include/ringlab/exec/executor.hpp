#pragma once
// Runs one rank's plan over a Transport on real buffers. Within a step, every transfer is cut into
// segments: receives go into a few reused scratch slots and are reduced while the next segments
// are in flight, so reduction overlaps transfer. Scratch is owned by the Executor and only ever
// grows: after the first call of a given size no memory is allocated or first touched.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce_op.hpp"
#include "ringlab/exec/rank_plan.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::exec {

inline constexpr std::uint64_t kDefaultSegmentBytes = 256 * 1024;
inline constexpr int kDefaultPipelineDepth = 4;

struct ExecOptions {
  // Transfers are cut into segments of this many bytes, rounded down to whole elements (at least
  // one element per segment).
  std::uint64_t segmentBytes = kDefaultSegmentBytes;
  // Receive segments in flight per step (scratch slots).
  int pipelineDepth = kDefaultPipelineDepth;
  // The deadline of each collective call, counted from its start (not from each wait): a call
  // not done by then fails with ErrorCode::Timeout, or with the rank to blame (exec/attribution).
  std::chrono::milliseconds timeout{60'000};
};

// Throws InvalidArgument naming the bad field.
// A timeout given in seconds (as users type it), at least a millisecond and at most a day: NaN,
// infinities and overflowing values are refused with InvalidArgument naming `what` and the value.
std::chrono::milliseconds timeoutFromSeconds(double seconds, const std::string& what);

void validate(const ExecOptions& options);

// A receive segment in flight: where it lands and how it is applied.
struct InFlight {
  transport::Request request;
  const PlannedRecv* recv = nullptr;
  std::uint64_t offset = 0;  // element offset within the buffer
  std::uint64_t count = 0;
  std::byte* landing = nullptr;  // scratch slot, or the output itself for direct copies
};

class Executor {
 public:
  explicit Executor(transport::Transport& transport) : transport_(transport) {}

  // input == output means in place. `input` may be null for in-place runs. Every wait gives up
  // at `deadline`. A premultiplied sum (how.op) needs a plan with its raw inputs marked; the
  // steps' raw operands come from the plan, the rest of `how.premultiply` is ignored.
  void run(const RankPlan& plan, const Reduction& how, const void* input, void* output,
           const ExecOptions& options, std::chrono::steady_clock::time_point deadline);

  // Waits for `request` by `deadline`. While it waits, and once it has thrown, waitingFor() is
  // `point` (the receive it waits for, or none); after it returns, none.
  void waitFor(transport::Request request, const transport::WaitPoint& point,
               std::chrono::steady_clock::time_point deadline);
  // Where this rank stands: what an abort tells the peers (exec/attribution.hpp).
  const transport::WaitPoint& waitingFor() const { return waitingFor_; }

 private:
  std::byte* scratch(std::size_t bytes);

  transport::Transport& transport_;
  std::vector<std::byte> scratch_;
  // Reused across steps and calls so the hot path does not allocate.
  std::vector<transport::Request> sends_;
  std::vector<InFlight> recvs_;
  transport::WaitPoint waitingFor_;
};

}  // namespace ringlab::exec
