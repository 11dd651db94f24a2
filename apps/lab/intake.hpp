#pragma once
// The lab server's front door: accepts connections and reads each request, head and body, on one
// thread with poll, so that a client that sends slowly holds a buffer and nothing else. Only a
// complete request goes to a worker. Every limit is enforced here, and answered here: a request
// line over kMaxUriBytes (414), a head over kMaxHeadBytes (431), a body over the caller's limit
// (413), a body without a Content-Length (411), a method the path does not take (405 with Allow),
// an unknown path (404), a request not complete within kRequestDeadline (408), a full house (503).
// Memory is bounded: kMaxBytesBuffered while reading, kMaxRequestsQueued requests queued.
// One request per connection ("Connection: close"): no worker waits on an idle keep-alive.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ringlab::lab {

inline constexpr std::chrono::seconds kRequestDeadline{10};  // from accept to the whole request
inline constexpr std::size_t kMaxUriBytes = 8192;            // the request line
inline constexpr std::size_t kMaxHeadBytes = 16384;          // request line and headers
inline constexpr std::size_t kMaxConnectionsReading = 128;   // still sending their request
inline constexpr std::size_t kMaxBytesBuffered = 64u << 20;  // read, not yet with a worker
inline constexpr std::size_t kMaxRequestsQueued = 16;        // complete, waiting for a worker
inline constexpr int kWorkers = 4;
inline constexpr std::chrono::seconds kResponseDeadline{10};  // to write one answer

// The body of an error answer: JSON {"error": what, "field": null} for a path under /api/, one
// line of text elsewhere.
struct ErrorBody {
  std::string contentType;
  std::string text;
};
ErrorBody errorBody(std::string_view path, const std::string& what);

// What the server behind the intake provides.
struct IntakeRoutes {
  // The methods `path` takes, as an Allow header says them ("GET, HEAD"); empty: no such path.
  std::function<std::string(std::string_view path)> allowed;
  std::size_t maxBodyBytes = 0;
  // Answers one complete request (head and body in `request`) on the connected socket `fd`, and
  // returns; the intake closes `fd`. Runs on a worker thread.
  std::function<void(int fd, std::string request)> serve;
};

// Accepts on the listening socket `listener` (which it owns from now on) until `stopFd` (an
// eventfd or pipe) becomes readable; then closes every connection and joins its workers.
void runIntake(int listener, int stopFd, const IntakeRoutes& routes);

}  // namespace ringlab::lab
