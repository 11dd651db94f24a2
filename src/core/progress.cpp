#include "ringlab/core/progress.hpp"

#include <algorithm>
#include <utility>

namespace ringlab {

ProgressMeter::ProgressMeter(ProgressCallback callback, std::uint64_t total)
    : callback_(std::move(callback)), step_(std::max<std::uint64_t>(1, total / kReports)) {
  progress_.total = total;
  nextReport_ = step_;
}

void ProgressMeter::stage(std::string text) {
  progress_.stage = std::move(text);
  report();
}

void ProgressMeter::advance(std::uint64_t units) {
  const std::uint64_t before = progress_.done;
  progress_.done = std::min(progress_.total, progress_.done + units);
  if (progress_.done >= nextReport_ ||
      (progress_.done == progress_.total && before < progress_.total)) {
    nextReport_ = progress_.done + step_;
    report();
  }
}

void ProgressMeter::report() {
  if (callback_) callback_(progress_);
}

}  // namespace ringlab
