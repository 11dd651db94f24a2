#include "exec/attribution.hpp"

#include <algorithm>
#include <optional>
#include <string>

namespace ringlab::exec {
namespace {

std::string rankList(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  }
  return text;
}

// A wait's place in a call: the agreement rounds first, then the schedule's steps.
std::uint64_t placeInCall(std::uint32_t tag) {
  return tag >= kAgreementTag ? tag - kAgreementTag : (std::uint64_t{1} << 32) + tag;
}

// By call first (counted modulo 2^32; ranks are at most a call or so apart), then within it.
bool earlier(const transport::WaitPoint& a, const transport::WaitPoint& b) {
  if (a.call != b.call) return static_cast<std::int32_t>(a.call - b.call) < 0;
  return placeInCall(a.tag) < placeInCall(b.tag);
}

std::string stepName(std::uint32_t tag) {
  return tag >= kAgreementTag ? "agreement round " + std::to_string(tag - kAgreementTag)
                              : "step " + std::to_string(tag);
}

// Of a call where every rank answered and said where it stood, the ranks waiting to receive at
// the earliest step of any; nullopt when one did not say or none waits for a receive.
std::optional<std::vector<int>> earliestWaiters(const std::vector<transport::PeerReport>& reports) {
  std::vector<int> waiters;
  for (int r = 0; r < static_cast<int>(reports.size()); ++r) {
    const transport::PeerReport& report = reports[r];
    if (report.state != transport::PeerState::Answered || !report.waiting) return std::nullopt;
    if (report.waiting->peer < 0) continue;
    if (!waiters.empty() && earlier(*report.waiting, *reports[waiters.front()].waiting)) {
      waiters.clear();
    }
    if (waiters.empty() || !earlier(*reports[waiters.front()].waiting, *report.waiting)) {
      waiters.push_back(r);
    }
  }
  if (waiters.empty()) return std::nullopt;
  return waiters;
}

// "rank 1 stopped sending: every rank answered this rank's abort, and the earliest step any of
// them waits at is step 0, where rank 2 waits for rank 1's message"
std::string stoppedSenders(int rank, const std::vector<transport::PeerReport>& reports,
                           const std::vector<int>& waiters) {
  std::vector<int> senders;
  std::string where;
  for (int w : waiters) {
    const int sender = reports[w].waiting->peer;
    if (std::find(senders.begin(), senders.end(), sender) == senders.end())
      senders.push_back(sender);
    where += where.empty()
                 ? "rank " + std::to_string(w) + " waits for rank " + std::to_string(sender) +
                       "'s message"
                 : ", rank " + std::to_string(w) + " for rank " + std::to_string(sender) + "'s";
  }
  std::sort(senders.begin(), senders.end());
  const bool self = senders == std::vector<int>{rank};
  return rankList(senders) + (self ? " (this rank)" : "") +
         " stopped sending: every rank answered this rank's abort, and the earliest step any of "
         "them waits at is " +
         stepName(reports[waiters.front()].waiting->tag) + ", where " + where;
}

}  // namespace

CallDeadline callDeadline(Clock::time_point start, std::chrono::milliseconds timeout) {
  const auto window = std::min(timeout / 4, std::chrono::milliseconds(1000));
  return {start + timeout - window, start + timeout, window};
}

Error attributeFailure(int rank, const Error& first,
                       const std::vector<transport::PeerReport>& reports) {
  std::vector<int> gone, silent, answered;
  for (int r = 0; r < static_cast<int>(reports.size()); ++r) {
    if (r == rank) continue;
    if (reports[r].state == transport::PeerState::Gone) gone.push_back(r);
    if (reports[r].state == transport::PeerState::Silent) silent.push_back(r);
    if (reports[r].state == transport::PeerState::Answered) answered.push_back(r);
  }
  const std::string saw = "; what this rank saw first: " + std::string(first.what());
  if (gone.empty() && silent.empty()) {
    // Ranks on different calls, or a malformed frame, fail otherwise than by a timeout: the
    // first error names the cause already.
    if (first.code() != ErrorCode::Timeout) return first;
    const std::optional<std::vector<int>> waiters = earliestWaiters(reports);
    if (!waiters) return first;
    return Error(ErrorCode::Timeout, "rank " + std::to_string(rank) + ": " +
                                         stoppedSenders(rank, reports, *waiters) + saw);
  }
  std::string text = "rank " + std::to_string(rank) + ": ";
  if (!gone.empty()) {
    text += rankList(gone) + " exited or crashed during the collective";
  }
  if (!silent.empty()) {
    text += (gone.empty() ? "" : "; ") + rankList(silent) +
            (silent.size() == 1 ? " is stopped or hung: it" : " are stopped or hung: they") +
            " did not answer this rank's abort";
  }
  if (!answered.empty()) text += " (" + rankList(answered) + " answered)";
  return Error(gone.empty() ? ErrorCode::Timeout : ErrorCode::PeerLost, text + saw);
}

}  // namespace ringlab::exec
