#include "ringlab/exec/executor.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "ringlab/core/error.hpp"
#include "ringlab/core/partition.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::exec {

void validate(const ExecOptions& options) {
  if (options.segmentBytes == 0) throwInvalid("segment size 0: must be at least 1 byte");
  if (options.pipelineDepth < 1) {
    throwInvalid("pipeline depth " + std::to_string(options.pipelineDepth) + ": must be >= 1");
  }
  if (options.timeout.count() <= 0) {
    throwInvalid("timeout " + std::to_string(options.timeout.count()) + " ms: must be > 0");
  }
}

std::chrono::milliseconds timeoutFromSeconds(double seconds, const std::string& what) {
  if (!(seconds >= 0.001 && seconds <= 86400)) {
    throwInvalid(what + " " + formatNumber(seconds) + ": must be between 0.001 and 86400 seconds");
  }
  return std::chrono::milliseconds(std::llround(seconds * 1000));
}

std::byte* Executor::scratch(std::size_t bytes) {
  if (scratch_.size() < bytes) scratch_.resize(bytes);
  return scratch_.data();
}

void Executor::waitFor(transport::Request request, const transport::WaitPoint& point,
                       std::chrono::steady_clock::time_point deadline) {
  waitingFor_ = point;
  transport_.waitUntil(request, deadline);
  waitingFor_ = {};
}

void Executor::run(const RankPlan& plan, const Reduction& how, const void* input, void* output,
                   const ExecOptions& options, std::chrono::steady_clock::time_point deadline) {
  validate(options);
  const DataType type = how.type;
  // What a receive combines: for a premultiplied sum, which of its operands are raw inputs.
  const auto reductionFor = [&how](const PlannedRecv& r) {
    Reduction step = how;
    step.premultiply.a = r.mineRaw;
    step.premultiply.b = r.theirsRaw;
    return step;
  };
  const std::size_t esize = dataTypeSize(type);
  const auto* in = static_cast<const std::byte*>(input ? input : output);
  auto* out = static_cast<std::byte*>(output);
  const std::uint64_t segElems = segmentElements(options.segmentBytes, esize);
  const std::size_t slotBytes = segElems * esize;
  const bool reduceOnReceive = transport_.reducesOnReceive();

  for (const PlannedStep& step : plan.steps) {
    const std::uint32_t tag = step.index;
    // Where a step reads what it writes, or writes a block twice, every receive lands in its own
    // scratch space and is applied in order once the sends are done; otherwise `depth` slots are
    // recycled.
    const bool buffered = step.bufferReceives;
    std::byte* slots =
        scratch(buffered ? plan.maxStepRecvElements * esize : slotBytes * options.pipelineDepth);

    sends_.clear();
    for (const PlannedSend& s : step.sends) {
      const std::byte* base = s.fromOutput ? out : in;
      for (std::uint64_t done = 0; done < s.range.count; done += segElems) {
        const std::uint64_t n = std::min(segElems, s.range.count - done);
        sends_.push_back(
            transport_.isend(s.peer, base + (s.range.offset + done) * esize, n * esize, tag));
      }
    }

    // Receive segments in order, keeping up to `depth` (or, buffered, all) in flight.
    std::vector<InFlight>& window = recvs_;
    window.clear();
    std::size_t nextSlot = 0;
    std::size_t recvIndex = 0;
    std::uint64_t recvDone = 0;
    std::uint64_t bufferedOffset = 0;
    const std::size_t depth = buffered ? SIZE_MAX : static_cast<std::size_t>(options.pipelineDepth);
    auto postNext = [&]() -> bool {
      while (recvIndex < step.recvs.size() && recvDone >= step.recvs[recvIndex].range.count) {
        ++recvIndex;
        recvDone = 0;
      }
      if (recvIndex == step.recvs.size()) return false;
      const PlannedRecv& r = step.recvs[recvIndex];
      const std::uint64_t n = std::min(segElems, r.range.count - recvDone);
      InFlight f{{}, &r, r.range.offset + recvDone, n, nullptr};
      if (buffered) {
        f.landing = slots + bufferedOffset * esize;
        bufferedOffset += n;
      } else if (r.mode == schedule::RecvMode::Copy) {
        f.landing = out + f.offset * esize;  // a copy lands in place: no second pass
      } else if (reduceOnReceive) {
        // The transport combines straight out of its own buffer: nothing left to apply.
        std::byte* dst = out + f.offset * esize;
        const std::byte* mine = (r.accumulatesOutput ? out : in) + f.offset * esize;
        f.landing = dst;
        f.request = transport_.irecvReduce(r.peer, dst, mine, n, reductionFor(r), tag);
        recvDone += n;
        window.push_back(f);
        return true;
      } else {
        f.landing = slots + (nextSlot++ % options.pipelineDepth) * slotBytes;
      }
      f.request = transport_.irecv(r.peer, f.landing, n * esize, tag);
      recvDone += n;
      window.push_back(f);
      return true;
    };
    auto apply = [&](const InFlight& f) {
      std::byte* dst = out + f.offset * esize;
      if (f.recv->mode == schedule::RecvMode::Reduce && !buffered && reduceOnReceive) return;
      if (f.recv->mode == schedule::RecvMode::Reduce) {
        const std::byte* mine = (f.recv->accumulatesOutput ? out : in) + f.offset * esize;
        reduce(reductionFor(*f.recv), dst, mine, f.landing, f.count);
      } else if (f.landing != dst) {
        copyBytes(dst, f.landing, f.count * esize);
      }
    };

    while (window.size() < depth && postNext()) {
    }
    // A wait for a receive tells where this rank stands; one for a send waits for no receive.
    auto waitForReceive = [&](const InFlight& f) {
      waitFor(f.request, {f.recv->peer, tag}, deadline);
    };
    if (buffered) {
      for (const InFlight& f : window) waitForReceive(f);
      for (transport::Request r : sends_) waitFor(r, {}, deadline);
      sends_.clear();
      for (const InFlight& f : window) apply(f);
    } else {
      for (std::size_t head = 0; head < window.size(); ++head) {
        waitForReceive(window[head]);
        apply(window[head]);
        postNext();
      }
    }
    for (transport::Request r : sends_) waitFor(r, {}, deadline);
  }

  if (in != out) {
    for (const ElementRange& r : plan.untouched) {
      copyBytes(out + r.offset * esize, in + r.offset * esize, r.count * esize);
    }
  }
  if (how.op == ReduceOp::Avg) {
    divideBy(type, out + plan.result.offset * esize, plan.result.count,
             static_cast<std::uint64_t>(transport_.size()));
  }
  if (how.op == ReduceOp::PreMulSum) {
    for (const ElementRange& r : plan.rawResult) {
      multiplyBy(type, out + r.offset * esize, r.count, how.premultiply.factor);
    }
  }
}

}  // namespace ringlab::exec
