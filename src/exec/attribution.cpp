#include "exec/attribution.hpp"

#include <algorithm>
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

}  // namespace

CallDeadline callDeadline(Clock::time_point start, std::chrono::milliseconds timeout) {
  const auto window = std::min(timeout / 4, std::chrono::milliseconds(1000));
  return {start + timeout - window, start + timeout, window};
}

Error attributeFailure(int rank, const Error& first,
                       const std::vector<transport::PeerState>& states) {
  std::vector<int> gone, silent, answered;
  for (int r = 0; r < static_cast<int>(states.size()); ++r) {
    if (r == rank) continue;
    if (states[r] == transport::PeerState::Gone) gone.push_back(r);
    if (states[r] == transport::PeerState::Silent) silent.push_back(r);
    if (states[r] == transport::PeerState::Answered) answered.push_back(r);
  }
  if (gone.empty() && silent.empty()) return first;
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
  text += "; what this rank saw first: " + std::string(first.what());
  return Error(gone.empty() ? ErrorCode::Timeout : ErrorCode::PeerLost, text);
}

}  // namespace ringlab::exec
